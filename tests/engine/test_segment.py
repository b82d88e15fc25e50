"""Sentence segmenter: exact pieces for each trap, and split-invariance (DESIGN section 2)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from replyguard.engine.segment import HOLDBACK, SentenceSegmenter, split_sentences
from replyguard.engine.segment_rules import (
    ABBREVIATIONS,
    BEFORE_NAME,
    BEFORE_NUMBER,
    END,
    HOLD,
)

ENGLISH = [
    pytest.param("Hello. World.  ", ["Hello. ", "World.  "], id="trailing_space"),
    pytest.param("Done.  ```\ncode. Here.\n```\n  Next one. Last.",
                 ["Done.  ", "```\ncode. Here.\n```\n  ", "Next one. ", "Last."],
                 id="fence_after_a_sentence_on_its_line"),
    pytest.param("Use `x`. ```y``` is inline. End.",
                 ["Use `x`. ", "```y``` is inline. ", "End."], id="inline_code_after_a_sentence"),
    pytest.param("Hello. World.", ["Hello. ", "World."], id="plain_two"),
    pytest.param("One. Two! Three?", ["One. ", "Two! ", "Three?"], id="plain_three"),
    pytest.param("just words without an end", ["just words without an end"], id="no_terminal"),
    pytest.param("  Hello. World.", ["  Hello. ", "World."], id="leading_space"),
    pytest.param("\n\nHello. World.", ["\n\nHello. ", "World."], id="leading_newlines"),
    pytest.param("First.    Second.", ["First.    ", "Second."], id="many_spaces"),
    pytest.param("Hello. world is round.", ["Hello. world is round."], id="lowercase_next"),
    pytest.param("Really?! Yes.", ["Really?! ", "Yes."], id="question_exclaim"),
    pytest.param("What!? No.", ["What!? ", "No."], id="exclaim_question"),
    pytest.param("Wait… What?", ["Wait… ", "What?"], id="ellipsis_char_upper"),
    pytest.param("Wait… what now?", ["Wait… what now?"], id="ellipsis_char_lower"),
    pytest.param("Well... Maybe later.", ["Well... ", "Maybe later."], id="ellipsis_dots_upper"),
    pytest.param("Well... maybe later.", ["Well... maybe later."], id="ellipsis_dots_lower"),
    pytest.param("Stop!!! Now.", ["Stop!!! ", "Now."], id="multi_exclaim"),
    pytest.param("I have two. 3 are left.", ["I have two. ", "3 are left."], id="digit_start"),
    pytest.param(
        'He said "Stop." Then left.', ['He said "Stop." ', "Then left."], id="quote_close"
    ),
    pytest.param(
        "She said 'No.' Then left.", ["She said 'No.' ", "Then left."], id="single_quote_close"
    ),
    pytest.param(
        "He said “Stop.” Then left.", ["He said “Stop.” ", "Then left."], id="curly_quote_close"
    ),
    pytest.param("(See above.) Next.", ["(See above.) ", "Next."], id="bracket_close"),
    pytest.param("[Note.] Next.", ["[Note.] ", "Next."], id="square_close"),
    pytest.param('Done. "Next," he said.', ["Done. ", '"Next," he said.'], id="quote_opens_next"),
    pytest.param("Done. (Next one.)", ["Done. ", "(Next one.)"], id="bracket_opens_next_upper"),
    pytest.param("Done. (see below)", ["Done. (see below)"], id="bracket_opens_next_lower"),
    pytest.param("**Important.** Read it.", ["**Important.** ", "Read it."], id="bold_close"),
    pytest.param("Done. **Next** step.", ["Done. ", "**Next** step."], id="bold_opens_next"),
    pytest.param(
        "Install it. `pip install x` works.",
        ["Install it. ", "`pip install x` works."],
        id="code_span_next",
    ),
    pytest.param("He left. , then", ["He left. , then"], id="comma_after"),
    pytest.param("Mr. Smith is here.", ["Mr. Smith is here."], id="abbr_mr"),
    pytest.param("Mrs. Jones left. She waved.", ["Mrs. Jones left. ", "She waved."], id="abbr_mrs"),
    pytest.param("Ms. Lee called.", ["Ms. Lee called."], id="abbr_ms"),
    pytest.param("Dr. Who arrived. Then left.", ["Dr. Who arrived. ", "Then left."], id="abbr_dr"),
    pytest.param("Ask Prof. Brown. He knows.", ["Ask Prof. Brown. ", "He knows."], id="abbr_prof"),
    pytest.param(
        "John Sr. and John Jr. Smith came.", ["John Sr. and John Jr. Smith came."], id="abbr_sr_jr"
    ),
    pytest.param(
        "Turn at St. Mark Street. Go on.", ["Turn at St. Mark Street. ", "Go on."], id="abbr_st"
    ),
    pytest.param("Cats vs. Dogs is a debate.", ["Cats vs. Dogs is a debate."], id="abbr_vs"),
    pytest.param("Use a tool, e.g. a hammer.", ["Use a tool, e.g. a hammer."], id="abbr_eg_lower"),
    pytest.param(
        "Use a language, e.g. Python. It works.",
        ["Use a language, e.g. Python. ", "It works."],
        id="abbr_eg_upper",
    ),
    pytest.param("One thing, i.e. The Thing.", ["One thing, i.e. The Thing."], id="abbr_ie"),
    pytest.param(
        "Apples, pears, etc. are fruit.", ["Apples, pears, etc. are fruit."], id="abbr_etc_lower"
    ),
    pytest.param(
        "Apples, pears, etc. Then more.",
        ["Apples, pears, etc. ", "Then more."],
        id="abbr_etc_upper",
    ),
    pytest.param("It takes approx. 5 minutes.", ["It takes approx. 5 minutes."], id="abbr_approx"),
    pytest.param("See fig. 3 for details.", ["See fig. 3 for details."], id="abbr_fig"),
    pytest.param("Item No. 5 is sold.", ["Item No. 5 is sold."], id="abbr_no_number"),
    pytest.param("No. That is wrong.", ["No. ", "That is wrong."], id="abbr_no_word"),
    pytest.param(
        "It ends Jan. 5 this year.", ["It ends Jan. 5 this year."], id="abbr_month_number"
    ),
    pytest.param(
        "It ended in Jan. Then it began.",
        ["It ended in Jan. ", "Then it began."],
        id="abbr_month_upper",
    ),
    pytest.param("The U.S. Army is big.", ["The U.S. Army is big."], id="abbr_us"),
    pytest.param(
        "He lives in the U.K. and works.", ["He lives in the U.K. and works."], id="abbr_uk"
    ),
    pytest.param("At 5 p.m. we eat.", ["At 5 p.m. we eat."], id="abbr_pm_lower"),
    pytest.param(
        "We met at 5 p.m. The talk ran late.",
        ["We met at 5 p.m. ", "The talk ran late."],
        id="abbr_pm_upper",
    ),
    pytest.param("Acme Inc. makes anvils.", ["Acme Inc. makes anvils."], id="abbr_inc_lower"),
    pytest.param(
        "Smith et al. (2020) showed it.", ["Smith et al. (2020) showed it."], id="abbr_et_al"
    ),
    pytest.param('He wrote "Mr. Smith" twice.', ['He wrote "Mr. Smith" twice.'], id="abbr_quoted"),
    pytest.param(
        "J. R. R. Tolkien wrote it.", ["J. R. R. Tolkien wrote it."], id="initials_tolkien"
    ),
    pytest.param(
        "John F. Kennedy spoke. Then left.",
        ["John F. Kennedy spoke. ", "Then left."],
        id="initials_kennedy",
    ),
    pytest.param("So do I. We agree.", ["So do I. ", "We agree."], id="pronoun_i"),
    pytest.param("Pi is 3.14 roughly. Yes.", ["Pi is 3.14 roughly. ", "Yes."], id="decimal"),
    pytest.param(
        "It costs $3.99 today. Buy it.", ["It costs $3.99 today. ", "Buy it."], id="money_dollar"
    ),
    pytest.param("It costs $12.50. Pay now.", ["It costs $12.50. ", "Pay now."], id="money_end"),
    pytest.param("We sold 1,234.56 units.", ["We sold 1,234.56 units."], id="thousands"),
    pytest.param(
        "Write to a@b.com today. Thanks.", ["Write to a@b.com today. ", "Thanks."], id="email"
    ),
    pytest.param(
        "Write to a.b@example.com. Thanks.",
        ["Write to a.b@example.com. ", "Thanks."],
        id="email_end",
    ),
    pytest.param(
        "Go to https://example.com/a.b?c=d now.",
        ["Go to https://example.com/a.b?c=d now."],
        id="url_inside",
    ),
    pytest.param(
        "Visit https://example.com/a.b?c=d. Then go.",
        ["Visit https://example.com/a.b?c=d. ", "Then go."],
        id="url_end",
    ),
    pytest.param(
        "Open report.pdf and main.py now.", ["Open report.pdf and main.py now."], id="file_names"
    ),
    pytest.param("Use v1.2.3 or later.", ["Use v1.2.3 or later."], id="version_v"),
    pytest.param(
        "Python 3.11.7 is out. Get it.", ["Python 3.11.7 is out. ", "Get it."], id="version_python"
    ),
    pytest.param("It ended.Then nothing.", ["It ended.Then nothing."], id="no_space_after"),
    pytest.param(
        "First line.\nSecond line.", ["First line.\n", "Second line."], id="newline_sentence"
    ),
    pytest.param(
        "This is a long\nsentence. Next.", ["This is a long\nsentence. ", "Next."], id="soft_wrap"
    ),
    pytest.param("It ended.\nthen more.", ["It ended.\nthen more."], id="soft_wrap_lower"),
    pytest.param("One.\r\nTwo.", ["One.\r\n", "Two."], id="crlf"),
    pytest.param("Para one\n\nPara two", ["Para one\n\n", "Para two"], id="blank_line"),
    pytest.param("Para one\n  \nPara two", ["Para one\n  \n", "Para two"], id="blank_line_spaces"),
    pytest.param(
        "Para one.\n\n\n\nPara two.", ["Para one.\n\n\n\n", "Para two."], id="blank_lines_run"
    ),
    pytest.param(
        "Steps:\n- one\n- two\nDone.", ["Steps:\n", "- one\n", "- two\n", "Done."], id="list_dash"
    ),
    pytest.param("* one\n* two", ["* one\n", "* two"], id="list_star"),
    pytest.param("+ one\n+ two", ["+ one\n", "+ two"], id="list_plus"),
    pytest.param(
        "1. First step\n2. Second step", ["1. First step\n", "2. Second step"], id="list_numbered"
    ),
    pytest.param("1) First\n2) Second", ["1) First\n", "2) Second"], id="list_paren"),
    pytest.param(
        "1. First step. Then more.\n2. Go",
        ["1. First step. ", "Then more.\n", "2. Go"],
        id="list_number_marker_not_end",
    ),
    pytest.param("- a\n  - b\n- c", ["- a\n  ", "- b\n", "- c"], id="list_nested"),
    pytest.param(
        "- This is a long\n  item. Next one.\n- Two",
        ["- This is a long\n  item. ", "Next one.\n", "- Two"],
        id="list_item_continued",
    ),
    pytest.param(
        "1. First item\n   goes on\nDone.", ["1. First item\n   goes on\n", "Done."],
        id="list_item_continued_then_prose",
    ),
    pytest.param("- one\n\tmore\n- two", ["- one\n\tmore\n", "- two"], id="list_item_tab"),
    pytest.param("- one.\n  Two\n", ["- one.\n  ", "Two\n"], id="list_item_continued_sentence"),
    pytest.param("- one\n two", ["- one\n ", "two"], id="list_item_one_space_is_not_continued"),
    pytest.param(
        "- Do this. Then that.\n- Next",
        ["- Do this. ", "Then that.\n", "- Next"],
        id="list_sentences",
    ),
    pytest.param("**Bold** start. Next.", ["**Bold** start. ", "Next."], id="emphasis_not_list"),
    pytest.param("Text\n---\nmore", ["Text\n---\nmore"], id="rule_not_list"),
    pytest.param("# Title\nText here. More.", ["# Title\n", "Text here. ", "More."], id="heading"),
    pytest.param(
        "## Part 1. Intro\n###### Deep\nBody",
        ["## Part 1. Intro\n", "###### Deep\n", "Body"],
        id="heading_levels",
    ),
    pytest.param(
        "Intro text\n## Next\nBody", ["Intro text\n", "## Next\n", "Body"], id="heading_before"
    ),
    pytest.param("#tag is here. Yes.", ["#tag is here. ", "Yes."], id="hashtag_not_heading"),
    pytest.param("####### not a heading", ["####### not a heading"], id="seven_hashes"),
    pytest.param(
        "| a | b |\n|---|---|\n| 1 | 2 |\nAfter.",
        ["| a | b |\n", "|---|---|\n", "| 1 | 2 |\n", "After."],
        id="table",
    ),
    pytest.param(
        "| Mr. X. Y. | Z. |\nEnd", ["| Mr. X. Y. | Z. |\n", "End"], id="table_cell_periods"
    ),
    pytest.param("See:\n| a |\n", ["See:\n", "| a |\n"], id="table_after_prose"),
    pytest.param(
        "Code:\n```python\nx = 1. Then\ny\n```\nAfter it.",
        ["Code:\n", "```python\nx = 1. Then\ny\n```\n", "After it."],
        id="fence",
    ),
    pytest.param(
        "```\nOne. Two. Three.\n\nFour.\n```\nDone.",
        ["```\nOne. Two. Three.\n\nFour.\n```\n", "Done."],
        id="fence_sentences_inside",
    ),
    pytest.param("~~~\na. B.\n~~~\nNext.", ["~~~\na. B.\n~~~\n", "Next."], id="fence_tilde"),
    pytest.param(
        "````\n```\nstill code\n````\nOut.",
        ["````\n```\nstill code\n````\n", "Out."],
        id="fence_longer_closer",
    ),
    pytest.param("Text.\n```\ncode. More.", ["Text.\n", "```\ncode. More."], id="fence_unclosed"),
    pytest.param("```\nx\n```", ["```\nx\n```"], id="fence_end_no_newline"),
    pytest.param("```\nx\n```\n\nNext", ["```\nx\n```\n\n", "Next"], id="fence_blank_after"),
    pytest.param(
        "- item\n  ```\n  x. Y\n  ```\n- next",
        ["- item\n  ", "```\n  x. Y\n  ```\n", "- next"],
        id="fence_indented",
    ),
    pytest.param("```\na\n```\n```\nb\n```\n", ["```\na\n```\n", "```\nb\n```\n"], id="fence_two"),
    pytest.param(
        "```x``` is inline. Ok.", ["```x``` is inline. ", "Ok."], id="inline_code_not_fence"
    ),
    pytest.param(
        "```\n```python\n```\nEnd", ["```\n```python\n```\n", "End"], id="fence_info_closer_not"
    ),
    # -- abbreviations before a name, and ones that end a sentence (Punkt's heuristics, the
    # -- English Golden Rules of pySBD / Pragmatic Segmenter)
    pytest.param("I can see Mt. Fuji from here.", ["I can see Mt. Fuji from here."], id="abbr_mt"),
    pytest.param("We flew to St. Louis. It rained.", ["We flew to St. Louis. ", "It rained."],
                 id="abbr_st_saint"),
    pytest.param("Turn left on Main St. Then stop.", ["Turn left on Main St. ", "Then stop."],
                 id="abbr_st_street_end"),
    pytest.param("They drove to Ft. Worth today.", ["They drove to Ft. Worth today."],
                 id="abbr_ft"),
    pytest.param("Meet me at 5th Ave. We can walk.", ["Meet me at 5th Ave. ", "We can walk."],
                 id="abbr_ave_end"),
    pytest.param("I met John Smith Jr. He was kind.", ["I met John Smith Jr. ", "He was kind."],
                 id="abbr_jr_end"),
    pytest.param("Ask Tom Brown Sr. They know him.",
                 ["Ask Tom Brown Sr. ", "They know him."], id="abbr_sr_end"),
    pytest.param("Dr. Smith will see you now.", ["Dr. Smith will see you now."], id="abbr_dr_name"),
    pytest.param("Did you see Albert I. Jones yesterday?",
                 ["Did you see Albert I. Jones yesterday?"],
                 id="initial_i_in_a_name"),
    pytest.param("We make a good team, you and I. Did you see Albert I. Jones yesterday?",
                 ["We make a good team, you and I. ", "Did you see Albert I. Jones yesterday?"],
                 id="pronoun_i_then_initial_i"),
    pytest.param("He served Henry I. He was loyal.", ["He served Henry I. ", "He was loyal."],
                 id="regnal_i_end"),
    pytest.param("I live in the U.S. How about you?", ["I live in the U.S. ", "How about you?"],
                 id="acronym_us_end"),
    pytest.param("I live in the E.U. How about you?", ["I live in the E.U. ", "How about you?"],
                 id="acronym_eu_end"),
    pytest.param("I work for the U.S. Government in Virginia.",
                 ["I work for the U.S. Government in Virginia."], id="acronym_us_name"),
    pytest.param("I have lived in the U.S. for 20 years.",
                 ["I have lived in the U.S. for 20 years."], id="acronym_us_lower"),
    pytest.param("He left the bank at 6 P.M. Mr. Smith then went to the store.",
                 ["He left the bank at 6 P.M. ", "Mr. Smith then went to the store."],
                 id="acronym_pm_before_a_title"),
    pytest.param("The show starts at 8 P.M. Eastern time.",
                 ["The show starts at 8 P.M. Eastern time."], id="acronym_pm_name"),
    pytest.param("I visited the U.S.A. last year.", ["I visited the U.S.A. last year."],
                 id="acronym_usa_lower"),
    pytest.param("We chose plan B. Then we left.", ["We chose plan B. ", "Then we left."],
                 id="letter_after_lowercase_end"),
    pytest.param("Take vitamin C. It helps.", ["Take vitamin C. ", "It helps."],
                 id="letter_vitamin_end"),
    pytest.param("My name is Jonas E. Smith.", ["My name is Jonas E. Smith."], id="initial_middle"),
    pytest.param("We need bread, milk, etc. The store closes soon.",
                 ["We need bread, milk, etc. ", "The store closes soon."], id="abbr_etc_end"),
    pytest.param("They closed the deal with Pitt, Briggs & Co. at noon.",
                 ["They closed the deal with Pitt, Briggs & Co. at noon."], id="abbr_co_lower"),
    pytest.param("They closed the deal with Pitt & Co. It closed yesterday.",
                 ["They closed the deal with Pitt & Co. ", "It closed yesterday."],
                 id="abbr_co_end"),
    pytest.param("I work at Acme Inc. My boss is kind.",
                 ["I work at Acme Inc. ", "My boss is kind."], id="abbr_inc_end"),
    pytest.param("Order No. 4412 has shipped.",
                 ["Order No. 4412 has shipped."], id="abbr_no_order"),
    pytest.param("You can find it at N°. 1026.253.553. That is where the treasure is.",
                 ["You can find it at N°. 1026.253.553. ", "That is where the treasure is."],
                 id="abbr_numero_sign"),
    pytest.param("Ask for Nº. 12 at the desk.", ["Ask for Nº. 12 at the desk."],
                 id="abbr_numero_ordinal"),
    pytest.param("Call tel. 555-0100 today.", ["Call tel. 555-0100 today."], id="abbr_tel"),
    # -- ellipses: inside a sentence or at its end, by the next word
    pytest.param("Well... I think so.", ["Well... I think so."], id="ellipsis_before_i"),
    pytest.param("Hmm… I'm not sure. Maybe.", ["Hmm… I'm not sure. ", "Maybe."],
                 id="ellipsis_before_im"),
    pytest.param("I waited... Then it came.", ["I waited... ", "Then it came."],
                 id="ellipsis_end"),
    pytest.param("I never meant that.... She left the store.",
                 ["I never meant that.... ", "She left the store."], id="ellipsis_four_dots"),
    pytest.param("One habit was weakened . . . was that of combining words.",
                 ["One habit was weakened . . . was that of combining words."],
                 id="ellipsis_spaced_lower"),
    pytest.param("The thing is . . . I didn't mean it.", ["The thing is . . . I didn't mean it."],
                 id="ellipsis_spaced_before_i"),
    pytest.param("The thing is . . . Then it ended.", ["The thing is . . . ", "Then it ended."],
                 id="ellipsis_spaced_end"),
    # -- a quotation and its citation
    pytest.param('"Stay hungry." – Steve Jobs', ['"Stay hungry." – Steve Jobs'],
                 id="citation_en_dash"),
    pytest.param('"Stay hungry, stay foolish." — Steve Jobs. Next.',
                 ['"Stay hungry, stay foolish." — Steve Jobs. ', "Next."], id="citation_em_dash"),
    pytest.param("“Be yourself.” ― Oscar Wilde", ["“Be yourself.” ― Oscar Wilde"],
                 id="citation_horizontal_bar"),
    pytest.param('"Less is more." ~ Mies', ['"Less is more." ~ Mies'], id="citation_tilde"),
    pytest.param('She turned to him, "This is great." she said.',
                 ['She turned to him, "This is great." she said.'], id="quote_then_lowercase"),
    # -- inline numbered and lettered lists
    pytest.param("1.) The first item 2.) The second item",
                 ["1.) The first item ", "2.) The second item"], id="inline_list_dot_paren"),
    pytest.param("1.) The first item. 2.) The second item.",
                 ["1.) The first item. ", "2.) The second item."],
                 id="inline_list_dot_paren_sentences"),
    pytest.param("1. The first item 2. The second item",
                 ["1. The first item ", "2. The second item"], id="inline_list_dot"),
    pytest.param("1. The first item. 2. The second item.",
                 ["1. The first item. ", "2. The second item."], id="inline_list_dot_sentences"),
    pytest.param("Steps: 1. Open the app. 2. Tap Settings. 3. Done.",
                 ["Steps: 1. Open the app. ", "2. Tap Settings. ", "3. Done."],
                 id="inline_list_after_colon"),
    pytest.param("a. The first item b. The second item c. The third list item",
                 ["a. The first item ", "b. The second item ", "c. The third list item"],
                 id="inline_list_letters"),
    pytest.param("Options: a. Red. b. Blue. c. Green.",
                 ["Options: a. Red. ", "b. Blue. ", "c. Green."], id="inline_list_letters_lower"),
    pytest.param("A. The first item B. The second item",
                 ["A. The first item ", "B. The second item"], id="inline_list_capitals"),
    pytest.param("8. Eight 9. Nine 10. Ten 11.) Eleven",
                 ["8. Eight ", "9. Nine ", "10. Ten ", "11.) Eleven"], id="inline_list_two_digits"),
    pytest.param("1. Do A 2. Do B", ["1. Do A ", "2. Do B"], id="inline_list_after_a_list_line"),
    pytest.param("Choose: a) Red. b) Blue.", ["Choose: a) Red. ", "b) Blue."],
                 id="inline_list_letter_paren"),
    pytest.param("Add 2 and 3 to get 5. Then multiply.",
                 ["Add 2 and 3 to get 5. ", "Then multiply."], id="number_is_no_marker"),
    pytest.param("Solve for x. Then stop.", ["Solve for x. ", "Then stop."],
                 id="letter_is_no_marker"),
    pytest.param("Use option a. Then restart.", ["Use option a. ", "Then restart."],
                 id="letter_a_is_no_marker"),
]

PORTUGUESE = [
    pytest.param("Olá. Tudo bem?", ["Olá. ", "Tudo bem?"], id="pt_plain"),
    pytest.param("Pronto. É isso.", ["Pronto. ", "É isso."], id="pt_accent_start"),
    pytest.param("Pronto. e depois?", ["Pronto. e depois?"], id="pt_lower"),
    pytest.param(
        "O Sr. Silva chegou. Depois saiu.", ["O Sr. Silva chegou. ", "Depois saiu."], id="pt_sr"
    ),
    pytest.param("A Sra. Costa ligou.", ["A Sra. Costa ligou."], id="pt_sra"),
    pytest.param("A Srta. Lima saiu.", ["A Srta. Lima saiu."], id="pt_srta"),
    pytest.param("O Dr. Souza atende.", ["O Dr. Souza atende."], id="pt_dr"),
    pytest.param("A Dra. Ana atende. Ligue já.", ["A Dra. Ana atende. ", "Ligue já."], id="pt_dra"),
    pytest.param(
        "A Dra.ª Ana atende. Ligue.", ["A Dra.ª Ana atende. ", "Ligue."], id="pt_dra_ordinal"
    ),
    pytest.param("O Dr.ª Lia veio.", ["O Dr.ª Lia veio."], id="pt_dr_ordinal"),
    pytest.param("O Prof. Dias explica.", ["O Prof. Dias explica."], id="pt_prof"),
    pytest.param("A Profa. Reis explica.", ["A Profa. Reis explica."], id="pt_profa"),
    pytest.param("Frutas, p. ex. Maçã, são boas.", ["Frutas, p. ex. Maçã, são boas."], id="pt_pex"),
    pytest.param(
        "Frutas, por ex. Banana, são boas.", ["Frutas, por ex. Banana, são boas."], id="pt_por_ex"
    ),
    pytest.param("Maçã, pera etc. são frutas.", ["Maçã, pera etc. são frutas."], id="pt_etc_lower"),
    pytest.param(
        "Maçã, pera etc. Depois, uva.", ["Maçã, pera etc. ", "Depois, uva."], id="pt_etc_upper"
    ),
    pytest.param("Casa nº 5. Depois vire.", ["Casa nº 5. ", "Depois vire."], id="pt_numero"),
    pytest.param("Casa n.º 5 fica ali.", ["Casa n.º 5 fica ali."], id="pt_numero_dot"),
    pytest.param("Veja a pág. 12 do livro.", ["Veja a pág. 12 do livro."], id="pt_pag"),
    pytest.param("Veja a pág. Seguinte.", ["Veja a pág. Seguinte."], id="pt_pag_upper"),
    pytest.param("Fica na Av. Paulista. Venha.", ["Fica na Av. Paulista. ", "Venha."], id="pt_av"),
    pytest.param("Ligue no tel. 3333-4444 hoje.", ["Ligue no tel. 3333-4444 hoje."], id="pt_tel"),
    pytest.param("A Souza & Cia. Ltda. vende.", ["A Souza & Cia. Ltda. vende."], id="pt_cia"),
    pytest.param(
        "Comprei na Acme Ltda. Ela entrega.",
        ["Comprei na Acme Ltda. ", "Ela entrega."],
        id="pt_ltda_upper",
    ),
    pytest.param("A Vale S.A. Informou lucro.", ["A Vale S.A. Informou lucro."], id="pt_sa"),
    pytest.param("V.Exa. Decide hoje.", ["V.Exa. Decide hoje."], id="pt_vexa"),
    pytest.param(
        "Custa R$ 12,50 hoje. Pague já.", ["Custa R$ 12,50 hoje. ", "Pague já."], id="pt_money"
    ),
    pytest.param(
        "Custa R$ 1.234,56. Pague já.",
        ["Custa R$ 1.234,56. ", "Pague já."],
        id="pt_money_thousands",
    ),
    pytest.param(
        "O total é R$ 99,90. Obrigado.", ["O total é R$ 99,90. ", "Obrigado."], id="pt_money_end"
    ),
    pytest.param(
        "Vence em jan. 2025 sem juros.", ["Vence em jan. 2025 sem juros."], id="pt_month_number"
    ),
    pytest.param("Conforme o art. 5 da lei.", ["Conforme o art. 5 da lei."], id="pt_art"),
    pytest.param(
        "J. Silva escreveu. Depois leu.", ["J. Silva escreveu. ", "Depois leu."], id="pt_initials"
    ),
    pytest.param("Você vem? Sim, vou.", ["Você vem? ", "Sim, vou."], id="pt_question"),
    pytest.param("Que ótimo! Obrigado.", ["Que ótimo! ", "Obrigado."], id="pt_exclaim"),
    pytest.param("Sério?! Não acredito.", ["Sério?! ", "Não acredito."], id="pt_interrobang"),
    pytest.param("Bem... talvez amanhã.", ["Bem... talvez amanhã."], id="pt_ellipsis_lower"),
    pytest.param("Bem… Talvez amanhã.", ["Bem… ", "Talvez amanhã."], id="pt_ellipsis_upper"),
    pytest.param(
        'Ele disse "Pare." Depois saiu.', ['Ele disse "Pare." ', "Depois saiu."], id="pt_quote"
    ),
    pytest.param(
        "Ele disse «Pare.» Depois saiu.", ["Ele disse «Pare.» ", "Depois saiu."], id="pt_guillemets"
    ),
    pytest.param("Pronto. ¿Qué?", ["Pronto. ", "¿Qué?"], id="pt_inverted"),
    pytest.param("(Veja acima.) Próximo.", ["(Veja acima.) ", "Próximo."], id="pt_bracket"),
    pytest.param(
        "Passos:\n1. Abra o app\n2. Clique",
        ["Passos:\n", "1. Abra o app\n", "2. Clique"],
        id="pt_list",
    ),
    pytest.param("- um\n- dois", ["- um\n", "- dois"], id="pt_list_dash"),
    pytest.param(
        "# Título\nTexto aqui. Mais.", ["# Título\n", "Texto aqui. ", "Mais."], id="pt_heading"
    ),
    pytest.param(
        "| Item | Preço |\n| Pão | R$ 5,00 |\n",
        ["| Item | Preço |\n", "| Pão | R$ 5,00 |\n"],
        id="pt_table",
    ),
    pytest.param(
        "Veja:\n```\nSr. X. Y.\n```\nFim.",
        ["Veja:\n", "```\nSr. X. Y.\n```\n", "Fim."],
        id="pt_fence",
    ),
    pytest.param(
        "Parágrafo um.\n\nParágrafo dois.", ["Parágrafo um.\n\n", "Parágrafo dois."], id="pt_blank"
    ),
    pytest.param(
        "Escreva para ana@exemplo.com.br hoje.",
        ["Escreva para ana@exemplo.com.br hoje."],
        id="pt_email",
    ),
    pytest.param(
        "Veja https://exemplo.com.br/a.b. Depois volte.",
        ["Veja https://exemplo.com.br/a.b. ", "Depois volte."],
        id="pt_url",
    ),
    pytest.param("Abra o relatorio.pdf agora.", ["Abra o relatorio.pdf agora."], id="pt_file"),
    pytest.param(
        "Use a versão 3.11.7 agora. Ok.", ["Use a versão 3.11.7 agora. ", "Ok."], id="pt_version"
    ),
    pytest.param("Falei com o Sr. Almeida ontem.", ["Falei com o Sr. Almeida ontem."],
                 id="pt_sr_name"),
    pytest.param("A Sra. Maria chegou. Ela trouxe bolo.",
                 ["A Sra. Maria chegou. ", "Ela trouxe bolo."],
                 id="pt_sra_then_end"),
    pytest.param("O Dr. Paulo e a Dra. Ana atendem.", ["O Dr. Paulo e a Dra. Ana atendem."],
                 id="pt_dr_dra"),
    pytest.param("Use frutas, p. ex. maçã e pera.", ["Use frutas, p. ex. maçã e pera."],
                 id="pt_pex_lower"),
    pytest.param("O total foi R$ 12,50. Pague no caixa.",
                 ["O total foi R$ 12,50. ", "Pague no caixa."], id="pt_money_end_then"),
    pytest.param("Paguei R$ 1.299,90 no total.", ["Paguei R$ 1.299,90 no total."],
                 id="pt_money_inside"),
    pytest.param("O pedido n.º 4412 foi enviado.", ["O pedido n.º 4412 foi enviado."],
                 id="pt_numero_order"),
    pytest.param("Pedido N.º 4412 enviado. Obrigado.", ["Pedido N.º 4412 enviado. ", "Obrigado."],
                 id="pt_numero_capital"),
    pytest.param("Veja o nº. 12 da lista.", ["Veja o nº. 12 da lista."], id="pt_numero_period"),
    pytest.param("Fica no N°. 300 da rua.", ["Fica no N°. 300 da rua."], id="pt_numero_sign"),
    pytest.param("Moro na Av. Paulista, 1000.", ["Moro na Av. Paulista, 1000."],
                 id="pt_av_paulista"),
    pytest.param("Fica na Al. Santos. Venha.", ["Fica na Al. Santos. ", "Venha."],
                 id="pt_alameda"),
    pytest.param("Fica na R. Augusta, 500.", ["Fica na R. Augusta, 500."], id="pt_rua"),
    pytest.param("Encontre-me na Pça. Roosevelt hoje.", ["Encontre-me na Pça. Roosevelt hoje."],
                 id="pt_praca"),
    pytest.param("Siga pela Rod. Anchieta até o fim.", ["Siga pela Rod. Anchieta até o fim."],
                 id="pt_rodovia"),
    pytest.param("O Cap. Nascimento chegou.", ["O Cap. Nascimento chegou."], id="pt_capitao"),
    pytest.param("Leia o cap. 3 hoje.", ["Leia o cap. 3 hoje."], id="pt_capitulo"),
    pytest.param("Isso foi no séc. XIX. Depois mudou.", ["Isso foi no séc. XIX. ", "Depois mudou."],
                 id="pt_seculo"),
    pytest.param("O Pe. Antônio rezou a missa.", ["O Pe. Antônio rezou a missa."], id="pt_padre"),
    pytest.param("O Eng. Carlos assinou.", ["O Eng. Carlos assinou."], id="pt_engenheiro"),
    pytest.param("Moro nos E.U.A. Depois voltei.", ["Moro nos E.U.A. ", "Depois voltei."],
                 id="pt_acronym_end"),
    pytest.param("Trabalho na Acme S.A. Ela paga bem.", ["Trabalho na Acme S.A. ", "Ela paga bem."],
                 id="pt_sa_end"),
    pytest.param("Tome vitamina C. Ela ajuda.", ["Tome vitamina C. ", "Ela ajuda."],
                 id="pt_letter_end"),
    pytest.param("O poeta Carlos D. Andrade escreveu.", ["O poeta Carlos D. Andrade escreveu."],
                 id="pt_initial_middle"),
    pytest.param("Bem… Eu acho que sim.", ["Bem… ", "Eu acho que sim."], id="pt_ellipsis_eu"),
    pytest.param("Passos: 1. Abra o app. 2. Toque em Ajustes. 3. Pronto.",
                 ["Passos: 1. Abra o app. ", "2. Toque em Ajustes. ", "3. Pronto."],
                 id="pt_inline_list"),
    pytest.param("Opções: a) Pix. b) Boleto. c) Cartão.",
                 ["Opções: a) Pix. ", "b) Boleto. ", "c) Cartão."], id="pt_inline_list_letters"),
    pytest.param("1.) Abra o app 2.) Toque em Ajustes", ["1.) Abra o app ", "2.) Toque em Ajustes"],
                 id="pt_inline_list_dot_paren"),
    pytest.param("«Só sei que nada sei.» — Sócrates", ["«Só sei que nada sei.» — Sócrates"],
                 id="pt_citation_guillemets"),
    pytest.param('"Tudo vale a pena." – Fernando Pessoa', ['"Tudo vale a pena." – Fernando Pessoa'],
                 id="pt_citation"),
    pytest.param("V. Exa. Decide hoje.", ["V. Exa. Decide hoje."], id="pt_v_exa_spaced"),
    pytest.param("V. Sa. Receberá a carta.", ["V. Sa. Receberá a carta."], id="pt_v_sa_spaced"),
    pytest.param("Silva et al. Mostraram isso.", ["Silva et al. Mostraram isso."], id="pt_et_al"),
    pytest.param("Veja fls. 12 do processo.", ["Veja fls. 12 do processo."], id="pt_folhas"),
    pytest.param("Conforme o art. 5º, inc. II da lei.", ["Conforme o art. 5º, inc. II da lei."],
                 id="pt_inciso"),
    pytest.param("Ligue no tel. (11) 3333-4444 hoje.", ["Ligue no tel. (11) 3333-4444 hoje."],
                 id="pt_tel_area_code"),
    pytest.param("Somei 2 e 3 e deu 5. Depois dividi.", ["Somei 2 e 3 e deu 5. ", "Depois dividi."],
                 id="pt_number_is_no_marker"),
]

#: CJK text (Japanese, Chinese) is written without spaces: `。！？．｡` end a sentence with no
#: whitespace after them, in either language's segmenter.
CJK = [
    pytest.param("今日は晴れです。明日は雨でしょう！本当？",
                 ["今日は晴れです。", "明日は雨でしょう！", "本当？"], id="ja_three"),
    pytest.param("你好！我是小明。你呢？", ["你好！", "我是小明。", "你呢？"], id="zh_three"),
    pytest.param("カードは4111 1111 1111 1111です。ありがとうございます。",
                 ["カードは4111 1111 1111 1111です。", "ありがとうございます。"], id="ja_value"),
    pytest.param("我的邮箱是jane.doe@example.com，谢谢。请回复。",
                 ["我的邮箱是jane.doe@example.com，谢谢。", "请回复。"], id="zh_email"),
    pytest.param("彼は「はい。」次の文です。", ["彼は「はい。」", "次の文です。"], id="ja_closer"),
    pytest.param("彼は「行きます。」と言った。次の文です。",
                 ["彼は「行きます。」と言った。", "次の文です。"], id="ja_quotative_to"),
    pytest.param("「はい。」って言った。とにかく行こう。",
                 ["「はい。」って言った。", "とにかく行こう。"], id="ja_quotative_tte"),
    pytest.param("「こんにちは。」『はい。』", ["「こんにちは。」", "『はい。』"], id="ja_quotes"),
    pytest.param("（注意してください。）次へ。", ["（注意してください。）", "次へ。"],
                 id="ja_full_width_paren"),
    pytest.param("【重要です！】読んで。", ["【重要です！】", "読んで。"], id="ja_lenticular"),
    pytest.param("他说：“我来了。”然后走了。", ["他说：“我来了。”", "然后走了。"], id="zh_quote"),
    pytest.param("これはペンです．それは本です．", ["これはペンです．", "それは本です．"],
                 id="ja_full_width_stop"),
    pytest.param("円周率は３．１４です。", ["円周率は３．１４です。"], id="ja_full_width_decimal"),
    pytest.param("ｅｘａｍｐｌｅ．ｃｏｍを見て。", ["ｅｘａｍｐｌｅ．ｃｏｍを見て。"],
                 id="ja_full_width_domain"),
    pytest.param("ﾃｽﾄです｡次です｡", ["ﾃｽﾄです｡", "次です｡"], id="ja_halfwidth_stop"),
    pytest.param("本当？！はい。", ["本当？！", "はい。"], id="ja_run"),
    pytest.param("终于……我到了。", ["终于……我到了。"], id="zh_ellipsis_inside"),
    pytest.param("はい。 次です。", ["はい。 ", "次です。"], id="ja_space_after"),
    pytest.param("一行目。\n二行目。", ["一行目。\n", "二行目。"], id="ja_newline"),
    pytest.param("了解です。Thanks.", ["了解です。", "Thanks."], id="ja_then_english"),
    pytest.param("了解です。iPhoneで開いて。", ["了解です。", "iPhoneで開いて。"],
                 id="ja_then_lowercase_latin"),
    pytest.param("手順は3つです。1つ目は簡単です。", ["手順は3つです。", "1つ目は簡単です。"],
                 id="ja_then_digit"),
    pytest.param("これは.テスト", ["これは.テスト"], id="ja_ascii_period_without_space"),
    pytest.param("Done. 完了です。", ["Done. ", "完了です。"], id="english_then_ja"),
    pytest.param("見て。\n```\ncode。\n```\n次へ。", ["見て。\n", "```\ncode。\n```\n", "次へ。"],
                 id="ja_then_fence"),
    pytest.param("手順：\n1. 開く。閉じる。\n2. 終わり",
                 ["手順：\n", "1. 開く。", "閉じる。\n", "2. 終わり"], id="ja_list"),
    pytest.param("はい。、次", ["はい。、次"], id="ja_comma_after"),
]


@pytest.mark.parametrize(("text", "pieces"), ENGLISH)
def test_english_pieces(text: str, pieces: list[str]) -> None:
    assert split_sentences(text) == pieces


@pytest.mark.parametrize(("text", "pieces"), PORTUGUESE)
def test_portuguese_pieces(text: str, pieces: list[str]) -> None:
    assert split_sentences(text, "pt-BR") == pieces


@pytest.mark.parametrize("language", ["en", "pt-BR"])
@pytest.mark.parametrize(("text", "pieces"), CJK)
def test_cjk_pieces(text: str, pieces: list[str], language: str) -> None:
    assert split_sentences(text, language) == pieces


#: (language, word before the period, the word before it, what the period means)
KINDS = [
    ("en", "Mr", "", HOLD), ("en", "e.g", "tool,", HOLD), ("en", "al", "et", HOLD),
    ("en", "No", "Order", BEFORE_NUMBER), ("en", "N°", "at", BEFORE_NUMBER),
    ("en", "Mt", "see", BEFORE_NAME), ("en", "Jr", "Smith", BEFORE_NAME),
    ("en", "U.S", "the", BEFORE_NAME), ("en", "P.M", "6", BEFORE_NAME),
    ("en", "B", "plan", BEFORE_NAME), ("en", "E", "Jonas", HOLD), ("en", "J", "", HOLD),
    ("en", "I", "Albert", BEFORE_NAME), ("en", "I", "and", END), ("en", "etc", "milk,", END),
    ("en", "Inc", "Acme", END), ("en", "Av", "the", END),
    ("pt-BR", "Sr", "o", HOLD), ("pt-BR", "ex", "p.", HOLD), ("pt-BR", "Exa", "V.", HOLD),
    ("pt-BR", "Av", "na", HOLD), ("pt-BR", "nº", "o", BEFORE_NUMBER),
    ("pt-BR", "S.A", "Vale", BEFORE_NAME), ("pt-BR", "C", "vitamina", BEFORE_NAME),
    ("pt-BR", "Ltda", "Acme", END),
]


@pytest.mark.parametrize(("language", "word", "previous", "kind"), KINDS)
def test_what_a_period_after_a_word_means(language: str, word: str, previous: str,
                                          kind: str) -> None:
    assert ABBREVIATIONS[language].kind(word, previous) == kind


def test_english_abbreviations_are_not_portuguese_ones() -> None:
    assert split_sentences("A Sra. Costa. Av. Paulista.") == ["A Sra. Costa. ", "Av. ", "Paulista."]


def test_segment_imports_only_the_standard_library() -> None:
    for path in ("engine/segment.py", "engine/segment_rules.py", "engine/sentence_end.py"):
        tree = ast.parse((Path(__file__).parents[2] / path).read_text(encoding="utf-8"))
        names = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        roots = {name.split(".")[0] for name in names} - {"replyguard"}
        assert roots <= set(sys.stdlib_module_names) | {"__future__"}, path
        assert not {name for name in names
                    if name.startswith("replyguard.")} - {"replyguard.engine.segment_rules",
                                                            "replyguard.engine.sentence_end"}


def test_empty_text_gives_no_pieces() -> None:
    assert split_sentences("") == []


def test_whitespace_only_text_is_one_piece() -> None:
    assert split_sentences(" \n\n ") == [" \n\n "]


@pytest.mark.parametrize("language", ["fr", "pt", "EN", ""])
def test_unknown_language_raises(language: str) -> None:
    with pytest.raises(ValueError, match=r"^language: "):
        SentenceSegmenter(language)


def test_max_chars_below_512_raises() -> None:
    with pytest.raises(ValueError, match=r"^max_chars: 511 is below 512$"):
        SentenceSegmenter(max_chars=511)


def test_sentence_released_once_next_one_starts() -> None:
    segmenter = SentenceSegmenter()
    assert segmenter.feed("Hello.") == []
    assert segmenter.feed("  ") == []
    assert segmenter.feed("W") == ["Hello.  "]
    assert segmenter.feed("orld.") == []
    assert segmenter.flush() == ["World."]


def test_lowercase_next_word_keeps_sentence_open() -> None:
    segmenter = SentenceSegmenter()
    assert segmenter.feed("See e.g. ") == []
    assert segmenter.feed("this. Then") == ["See e.g. this. "]


def test_list_line_released_once_next_line_is_known() -> None:
    segmenter = SentenceSegmenter()
    assert segmenter.feed("- one\n") == []
    assert segmenter.feed("- two\n") == ["- one\n"]


def test_unclosed_fence_waits_for_flush() -> None:
    segmenter = SentenceSegmenter()
    assert segmenter.feed("```\nOne. Two.\n\nThree.\n") == []
    assert segmenter.flush() == ["```\nOne. Two.\n\nThree.\n"]


def test_flush_resets_for_a_new_reply() -> None:
    segmenter = SentenceSegmenter()
    assert segmenter.feed("```\nopen fence. A") == []
    assert segmenter.flush() == ["```\nopen fence. A"]
    assert segmenter.feed("New. Reply") == ["New. "]
    assert segmenter.flush() == ["Reply"]


def test_feed_of_empty_string_releases_nothing() -> None:
    segmenter = SentenceSegmenter()
    assert segmenter.feed("") == []
    assert segmenter.flush() == []


def test_cap_cuts_after_last_whitespace_before_holdback() -> None:
    assert HOLDBACK == 256
    text = "word " * 200
    assert split_sentences(text, max_chars=512) == ["word " * 51] * 2 + ["word " * 98]


def test_cap_without_whitespace_cuts_hard() -> None:
    assert split_sentences("x" * 600, max_chars=512) == ["x" * 256, "x" * 344]


def test_cap_uses_first_whitespace_after_holdback_when_none_before() -> None:
    text = "x" * 300 + " " + "y" * 300
    assert split_sentences(text, max_chars=512) == ["x" * 300 + " ", "y" * 300]


def test_cap_splits_a_long_fence() -> None:
    text = "```\n" + "code line\n" * 60 + "```\n"
    pieces = split_sentences(text, max_chars=512)
    assert pieces == ["```\n" + "code line\n" * 25, "code line\n" * 35 + "```\n"]


def _cards(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in _CARD.finditer(text)]


_CARD = re.compile(r"\d{4}(?: \d{4}){3}")


def test_cap_never_cuts_inside_a_no_cut_span() -> None:
    text = "a " * 120 + "4111 1111 1111 1111 " + "b " * 200
    segmenter = SentenceSegmenter(max_chars=512, no_cut=_cards)
    pieces = segmenter.feed(text) + segmenter.flush()
    assert pieces[0] == "a " * 120
    assert pieces[1].startswith("4111 1111 1111 1111 b ")
    assert "".join(pieces) == text


def test_cap_without_no_cut_may_cut_a_card() -> None:
    text = "a " * 120 + "4111 1111 1111 1111 " + "b " * 200
    assert split_sentences(text, max_chars=512)[0] == "a " * 120 + "4111 1111 1111 "


def test_piece_of_exactly_max_chars_is_cut() -> None:
    text = "a " * 255 + "b." + " Next."
    pieces = split_sentences(text, max_chars=512)
    assert pieces == ["a " * 128, "a " * 127 + "b. ", "Next."]


# ---------------------------------------------------------------- properties

_TOKENS = [
    "Hello",
    "world",
    "it",
    "Then",
    "É",
    "a",
    "I",
    "J.",
    "Mr.",
    "Dr.",
    "Sra.",
    "e.g.",
    "etc.",
    "p.",
    "ex.",
    "No.",
    "Jan.",
    "U.S.",
    "3.99",
    "$3.99",
    "R$ 1.234,56",
    "12.50",
    "a@b.com",
    "https://example.com/a.b?c=d",
    "report.pdf",
    "v1.2.3",
    ".",
    "!",
    "?",
    "?!",
    "...",
    "…",
    '"',
    "'",
    "“",
    "”",
    "(",
    ")",
    "[",
    "]",
    "**",
    "`",
    ",",
    ":",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "- ",
    "* ",
    "+ ",
    "1. ",
    "12) ",
    "# ",
    "### ",
    "| ",
    "|",
    "```",
    "```py",
    "~~~",
    "````",
    "4111 1111 1111 1111",
    "¿",
    "nº",
    "x" * 40,
    # inline lists, acronyms and initials before names, citations
    "St.",
    "Mt.",
    "Jr.",
    "I.",
    "P.M.",
    "How",
    "He",
    "Fuji",
    "Albert",
    "I'm",
    "I’",
    "1.)",
    "2.)",
    "a.",
    "b.",
    "b)",
    "Steps:",
    "–",
    "~",
    "N°.",
    # CJK sentence ends, closers and text
    "。",
    "！",
    "？",
    "．",
    "｡",
    "」",
    "』",
    "）",
    "】",
    "「",
    "です",
    "と",
    "３",
    "ｃｏｍ",
    "你好",
]
_SENTENCEISH = st.lists(st.sampled_from(_TOKENS), max_size=60).map("".join)
_CHARS = st.text(alphabet='aAbBI1:2 .!?…"()*-#|`~\n\t。！？．｡」）と３', max_size=80)
_TABLE = st.sampled_from([param.values[0] for param in ENGLISH + PORTUGUESE + CJK])
_TEXTS = st.one_of(_SENTENCEISH, _CHARS, _TABLE, st.tuples(_TABLE, _SENTENCEISH).map("".join))
_LONG = st.lists(st.sampled_from(_TOKENS), min_size=100, max_size=600).map("".join)


def _feed_in_pieces(segmenter: SentenceSegmenter, text: str, cuts: list[int]) -> list[str]:
    pieces: list[str] = []
    start = 0
    for cut in sorted(set(cuts)) + [len(text)]:
        pieces += segmenter.feed(text[start:cut])
        start = cut
    return pieces + segmenter.flush()


@settings(max_examples=500, deadline=None)
@given(data=st.data(), text=_TEXTS, language=st.sampled_from(["en", "pt-BR"]))
def test_any_cutting_gives_the_same_pieces(data: st.DataObject, text: str, language: str) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=20))
    streamed = _feed_in_pieces(SentenceSegmenter(language), text, cuts)
    assert streamed == split_sentences(text, language)


@settings(max_examples=500, deadline=None)
@given(text=_TEXTS, language=st.sampled_from(["en", "pt-BR"]))
def test_pieces_join_back_into_the_text(text: str, language: str) -> None:
    pieces = split_sentences(text, language)
    assert "".join(pieces) == text
    assert all(pieces)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), text=_LONG)
def test_cap_holds_under_any_cutting(data: st.DataObject, text: str) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=30))
    streamed = _feed_in_pieces(SentenceSegmenter(max_chars=512), text, cuts)
    assert streamed == split_sentences(text, max_chars=512)
    assert all(len(piece) <= 512 for piece in streamed)
    assert "".join(streamed) == text


_WORDS = st.lists(
    st.sampled_from(["word", "Next.", "4111 1111 1111 1111", "12345", "```", "\n", "- x"]),
    min_size=100,
    max_size=500,
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), text=_WORDS)
def test_cap_never_cuts_a_no_cut_span(data: st.DataObject, text: str) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=30))
    pieces = _feed_in_pieces(SentenceSegmenter(max_chars=512, no_cut=_cards), text, cuts)
    whole = SentenceSegmenter(max_chars=512, no_cut=_cards)
    assert pieces == whole.feed(text) + whole.flush()
    assert all(len(piece) <= 512 for piece in pieces)
    ends = {sum(map(len, pieces[: i + 1])) for i in range(len(pieces))}
    assert not any(start < end < stop for start, stop in _cards(text) for end in ends)


def test_leading_whitespace_over_the_cap_skips_none_of_the_text_after_it() -> None:
    """Whitespace beyond the cap before the first visible character is cut off, and the text
    after it is read as always: the blank line before `(` ends a piece, fed whole or in two
    (found by a fuzzer: fed whole, the scan jumped past `1\\n\\n(`)."""
    text = " " * 513 + "\t\xa01\n\n("
    expected = [" " * 258, " " * 255 + "\t\xa01\n\n", "("]
    assert split_sentences(text, "en", max_chars=513) == expected
    segmenter = SentenceSegmenter("en", max_chars=513)
    assert segmenter.feed(text[:515]) + segmenter.feed(text[515:]) + segmenter.flush() == expected


_ENDS, _CJK_ENDS, _CLOSE = ".!?…。！？．｡", "。！？．｡", "\"')\\]}»”’*_`」』）】〕〉》］｝〗〙｣"
_EVENT_PLAIN = re.compile(rf"[{_ENDS}]*[{_CJK_ENDS}][{_CLOSE}]*(?=[^{_ENDS}{_CLOSE}])"
                          r"(?!(?<=[A-Za-z0-9０-９Ａ-Ｚａ-ｚ][．！？。｡])[A-Za-z0-9０-９Ａ-Ｚａ-ｚ])"
                          rf"|[{_ENDS}]+[{_CLOSE}]*(?=\s)|\n")


@settings(max_examples=500)
@given(st.text(alphabet="ab .!?…\n\"')]}»”’*_`\t。！？．｡」』）", max_size=16),
       st.integers(0, 16))
def test_event_pattern_matches_its_plain_form(text: str, pos: int) -> None:
    """`engine.segment._EVENT` is written for speed; it finds what its plain form finds from
    any place the segmenter searches from: never the inside of a run of sentence ends (it
    searches from a run's first character, or after whitespace)."""
    from replyguard.engine.segment import _EVENT

    assume(pos == 0 or pos > len(text) or text[pos - 1] not in _ENDS)
    ours, plain = _EVENT.search(text, pos), _EVENT_PLAIN.search(text, pos)
    assert (ours and ours.span()) == (plain and plain.span())


@pytest.mark.parametrize("text", ["." * 9 + " A", "a?!?!" + "…" * 4 + "\") A", "x" + "!" * 5,
                                  "。" * 9 + "次", "a？！" + "。" * 4 + "」」次", "x" + "．" * 5])
def test_event_pattern_never_starts_inside_a_run(text: str) -> None:
    from replyguard.engine.segment import _EVENT

    starts = {m.start() for m in (_EVENT.search(text, pos) for pos in range(len(text))) if m}
    assert starts <= {0, 1}
