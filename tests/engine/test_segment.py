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
]


@pytest.mark.parametrize(("text", "pieces"), ENGLISH)
def test_english_pieces(text: str, pieces: list[str]) -> None:
    assert split_sentences(text) == pieces


@pytest.mark.parametrize(("text", "pieces"), PORTUGUESE)
def test_portuguese_pieces(text: str, pieces: list[str]) -> None:
    assert split_sentences(text, "pt-BR") == pieces


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
]
_SENTENCEISH = st.lists(st.sampled_from(_TOKENS), max_size=60).map("".join)
_CHARS = st.text(alphabet='aA1 .!?…"()*-#|`~\n\t', max_size=80)
_TABLE = st.sampled_from([param.values[0] for param in ENGLISH + PORTUGUESE])
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


@settings(max_examples=500, deadline=None)
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


@settings(max_examples=500, deadline=None)
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


_EVENT_PLAIN = re.compile(r"[.!?…]+[\"')\]}»”’*_`]*(?=\s)|\n")


@settings(max_examples=2000)
@given(st.text(alphabet="ab .!?…\n\"')]}»”’*_`\t", max_size=16), st.integers(0, 16))
def test_event_pattern_matches_its_plain_form(text: str, pos: int) -> None:
    """`engine.segment._EVENT` is written for speed; it finds what its plain form finds from
    any place the segmenter searches from: never the inside of a run of `.!?…` (it searches
    from a run's first character, or after whitespace)."""
    from replyguard.engine.segment import _EVENT

    assume(pos == 0 or pos > len(text) or text[pos - 1] not in ".!?…")
    ours, plain = _EVENT.search(text, pos), _EVENT_PLAIN.search(text, pos)
    assert (ours and ours.span()) == (plain and plain.span())


@pytest.mark.parametrize("text", ["." * 9 + " A", "a?!?!" + "…" * 4 + "\") A", "x" + "!" * 5])
def test_event_pattern_never_starts_inside_a_run(text: str) -> None:
    from replyguard.engine.segment import _EVENT

    starts = {m.start() for m in (_EVENT.search(text, pos) for pos in range(len(text))) if m}
    assert starts <= {0, 1}
