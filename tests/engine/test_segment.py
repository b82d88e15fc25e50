"""Sentence segmenter: exact pieces for each trap, and split-invariance (any cutting of a
text gives the pieces of the whole)."""

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


def _case(name: str, cut: str) -> object:
    """A text and the pieces it is cut into, written as the text with "¦" at each cut."""
    pieces = cut.split("¦")
    return pytest.param("".join(pieces), pieces, id=name)


ENGLISH = [
    _case("trailing_space", "Hello. ¦World.  "),
    _case("fence_after_a_sentence_on_its_line",
          "Done.  ¦```\ncode. Here.\n```\n  ¦Next one. ¦Last."),
    _case("inline_code_after_a_sentence", "Use `x`. ¦```y``` is inline. ¦End."),
    _case("plain_two", "Hello. ¦World."),
    _case("plain_three", "One. ¦Two! ¦Three?"),
    _case("no_terminal", "just words without an end"),
    _case("leading_space", "  Hello. ¦World."),
    _case("leading_newlines", "\n\nHello. ¦World."),
    _case("many_spaces", "First.    ¦Second."),
    _case("lowercase_next", "Hello. world is round."),
    _case("question_exclaim", "Really?! ¦Yes."),
    _case("exclaim_question", "What!? ¦No."),
    _case("ellipsis_char_upper", "Wait… ¦What?"),
    _case("ellipsis_char_lower", "Wait… what now?"),
    _case("ellipsis_dots_upper", "Well... ¦Maybe later."),
    _case("ellipsis_dots_lower", "Well... maybe later."),
    _case("multi_exclaim", "Stop!!! ¦Now."),
    _case("digit_start", "I have two. ¦3 are left."),
    _case("quote_close", 'He said "Stop." ¦Then left.'),
    _case("single_quote_close", "She said 'No.' ¦Then left."),
    _case("curly_quote_close", "He said “Stop.” ¦Then left."),
    _case("bracket_close", "(See above.) ¦Next."),
    _case("square_close", "[Note.] ¦Next."),
    _case("quote_opens_next", 'Done. ¦"Next," he said.'),
    _case("bracket_opens_next_upper", "Done. ¦(Next one.)"),
    _case("bracket_opens_next_lower", "Done. (see below)"),
    _case("bold_close", "**Important.** ¦Read it."),
    _case("bold_opens_next", "Done. ¦**Next** step."),
    _case("code_span_next", "Install it. ¦`pip install x` works."),
    _case("comma_after", "He left. , then"),
    _case("abbr_mr", "Mr. Smith is here."),
    _case("abbr_mrs", "Mrs. Jones left. ¦She waved."),
    _case("abbr_ms", "Ms. Lee called."),
    _case("abbr_dr", "Dr. Who arrived. ¦Then left."),
    _case("abbr_prof", "Ask Prof. Brown. ¦He knows."),
    _case("abbr_sr_jr", "John Sr. and John Jr. Smith came."),
    _case("abbr_st", "Turn at St. Mark Street. ¦Go on."),
    _case("abbr_vs", "Cats vs. Dogs is a debate."),
    _case("abbr_eg_lower", "Use a tool, e.g. a hammer."),
    _case("abbr_eg_upper", "Use a language, e.g. Python. ¦It works."),
    _case("abbr_ie", "One thing, i.e. The Thing."),
    _case("abbr_etc_lower", "Apples, pears, etc. are fruit."),
    _case("abbr_etc_upper", "Apples, pears, etc. ¦Then more."),
    _case("abbr_approx", "It takes approx. 5 minutes."),
    _case("abbr_fig", "See fig. 3 for details."),
    _case("abbr_no_number", "Item No. 5 is sold."),
    _case("abbr_no_word", "No. ¦That is wrong."),
    # -- a number sign before a code, a version or a reference before a digit
    _case("abbr_no_before_code", "Your NI no. AB 12 34 56 is on file."),
    _case("abbr_no_before_glued_code", "Part No. AB123456C ships today."),
    _case("abbr_no_before_letter_digit", "See No. A1 on the list."),
    _case("abbr_no_before_acronym_word", "I said no. ¦AB testing starts Monday."),
    _case("abbr_no_before_single_capital", "Is it big? ¦No. ¦A 4-door car is small."),
    _case("abbr_no_before_name", "The answer was no. ¦UK sales rose."),
    _case("abbr_ver_number", "Update to ver. 10.0.0.1 today."),
    _case("abbr_ref_number", "Quote ref. 2024-17 when you call."),
    _case("abbr_ref_bracketed_number", "Quote ref. (020) 7946 0123 when you call."),
    _case("abbr_ver_capital", "I checked the ver. ¦Then I left."),
    _case("abbr_ref_capital", "See the ref. ¦The rest is fine."),
    _case("abbr_month_number", "It ends Jan. 5 this year."),
    _case("abbr_month_upper", "It ended in Jan. ¦Then it began."),
    _case("abbr_us", "The U.S. Army is big."),
    _case("abbr_uk", "He lives in the U.K. and works."),
    _case("abbr_pm_lower", "At 5 p.m. we eat."),
    _case("abbr_pm_upper", "We met at 5 p.m. ¦The talk ran late."),
    _case("abbr_inc_lower", "Acme Inc. makes anvils."),
    _case("abbr_et_al", "Smith et al. (2020) showed it."),
    _case("abbr_quoted", 'He wrote "Mr. Smith" twice.'),
    _case("initials_tolkien", "J. R. R. Tolkien wrote it."),
    _case("initials_kennedy", "John F. Kennedy spoke. ¦Then left."),
    _case("pronoun_i", "So do I. ¦We agree."),
    _case("decimal", "Pi is 3.14 roughly. ¦Yes."),
    _case("money_dollar", "It costs $3.99 today. ¦Buy it."),
    _case("money_end", "It costs $12.50. ¦Pay now."),
    _case("thousands", "We sold 1,234.56 units."),
    _case("email", "Write to a@b.com today. ¦Thanks."),
    _case("email_end", "Write to a.b@example.com. ¦Thanks."),
    _case("url_inside", "Go to https://example.com/a.b?c=d now."),
    _case("url_end", "Visit https://example.com/a.b?c=d. ¦Then go."),
    _case("file_names", "Open report.pdf and main.py now."),
    _case("version_v", "Use v1.2.3 or later."),
    _case("version_python", "Python 3.11.7 is out. ¦Get it."),
    _case("no_space_after", "It ended.Then nothing."),
    _case("newline_sentence", "First line.\n¦Second line."),
    _case("soft_wrap", "This is a long\nsentence. ¦Next."),
    _case("soft_wrap_lower", "It ended.\nthen more."),
    _case("crlf", "One.\r\n¦Two."),
    _case("blank_line", "Para one\n\n¦Para two"),
    _case("blank_line_spaces", "Para one\n  \n¦Para two"),
    _case("blank_lines_run", "Para one.\n\n\n\n¦Para two."),
    _case("list_dash", "Steps:\n¦- one\n¦- two\n¦Done."),
    _case("list_star", "* one\n¦* two"),
    _case("list_plus", "+ one\n¦+ two"),
    _case("list_numbered", "1. First step\n¦2. Second step"),
    _case("list_paren", "1) First\n¦2) Second"),
    _case("list_number_marker_not_end", "1. First step. ¦Then more.\n¦2. Go"),
    _case("list_nested", "- a\n  ¦- b\n¦- c"),
    _case("list_item_continued", "- This is a long\n  item. ¦Next one.\n¦- Two"),
    _case("list_item_continued_then_prose", "1. First item\n   goes on\n¦Done."),
    _case("list_item_tab", "- one\n\tmore\n¦- two"),
    _case("list_item_continued_sentence", "- one.\n  ¦Two\n"),
    _case("list_item_one_space_is_not_continued", "- one\n ¦two"),
    _case("list_sentences", "- Do this. ¦Then that.\n¦- Next"),
    _case("emphasis_not_list", "**Bold** start. ¦Next."),
    _case("rule_not_list", "Text\n---\nmore"),
    _case("heading", "# Title\n¦Text here. ¦More."),
    _case("heading_levels", "## Part 1. Intro\n¦###### Deep\n¦Body"),
    _case("heading_before", "Intro text\n¦## Next\n¦Body"),
    _case("hashtag_not_heading", "#tag is here. ¦Yes."),
    _case("seven_hashes", "####### not a heading"),
    _case("table", "| a | b |\n¦|---|---|\n¦| 1 | 2 |\n¦After."),
    _case("table_cell_periods", "| Mr. X. Y. | Z. |\n¦End"),
    _case("table_after_prose", "See:\n¦| a |\n"),
    _case("fence", "Code:\n¦```python\nx = 1. Then\ny\n```\n¦After it."),
    _case("fence_sentences_inside", "```\nOne. Two. Three.\n\nFour.\n```\n¦Done."),
    _case("fence_tilde", "~~~\na. B.\n~~~\n¦Next."),
    _case("fence_longer_closer", "````\n```\nstill code\n````\n¦Out."),
    _case("fence_unclosed", "Text.\n¦```\ncode. More."),
    _case("fence_end_no_newline", "```\nx\n```"),
    _case("fence_blank_after", "```\nx\n```\n\n¦Next"),
    _case("fence_indented", "- item\n  ¦```\n  x. Y\n  ```\n¦- next"),
    _case("fence_two", "```\na\n```\n¦```\nb\n```\n"),
    _case("inline_code_not_fence", "```x``` is inline. ¦Ok."),
    _case("fence_info_closer_not", "```\n```python\n```\n¦End"),
    # -- abbreviations before a name, and ones that end a sentence (Punkt's heuristics, the
    # -- English Golden Rules of pySBD / Pragmatic Segmenter)
    _case("abbr_mt", "I can see Mt. Fuji from here."),
    _case("abbr_st_saint", "We flew to St. Louis. ¦It rained."),
    _case("abbr_st_street_end", "Turn left on Main St. ¦Then stop."),
    _case("abbr_ft", "They drove to Ft. Worth today."),
    _case("abbr_ave_end", "Meet me at 5th Ave. ¦We can walk."),
    _case("abbr_jr_end", "I met John Smith Jr. ¦He was kind."),
    _case("abbr_sr_end", "Ask Tom Brown Sr. ¦They know him."),
    _case("abbr_dr_name", "Dr. Smith will see you now."),
    _case("initial_i_in_a_name", "Did you see Albert I. Jones yesterday?"),
    _case("pronoun_i_then_initial_i",
          "We make a good team, you and I. ¦Did you see Albert I. Jones yesterday?"),
    _case("regnal_i_end", "He served Henry I. ¦He was loyal."),
    _case("acronym_us_end", "I live in the U.S. ¦How about you?"),
    _case("acronym_eu_end", "I live in the E.U. ¦How about you?"),
    _case("acronym_us_name", "I work for the U.S. Government in Virginia."),
    _case("acronym_us_lower", "I have lived in the U.S. for 20 years."),
    _case("acronym_pm_before_a_title",
          "He left the bank at 6 P.M. ¦Mr. Smith then went to the store."),
    _case("acronym_pm_name", "The show starts at 8 P.M. Eastern time."),
    _case("acronym_usa_lower", "I visited the U.S.A. last year."),
    _case("letter_after_lowercase_end", "We chose plan B. ¦Then we left."),
    _case("letter_vitamin_end", "Take vitamin C. ¦It helps."),
    _case("initial_middle", "My name is Jonas E. Smith."),
    _case("abbr_etc_end", "We need bread, milk, etc. ¦The store closes soon."),
    _case("abbr_co_lower", "They closed the deal with Pitt, Briggs & Co. at noon."),
    _case("abbr_co_end", "They closed the deal with Pitt & Co. ¦It closed yesterday."),
    _case("abbr_inc_end", "I work at Acme Inc. ¦My boss is kind."),
    _case("abbr_no_order", "Order No. 4412 has shipped."),
    _case("abbr_numero_sign",
          "You can find it at N°. 1026.253.553. ¦That is where the treasure is."),
    _case("abbr_numero_ordinal", "Ask for Nº. 12 at the desk."),
    _case("abbr_tel", "Call tel. 555-0100 today."),
    # -- ellipses: inside a sentence or at its end, by the next word
    _case("ellipsis_before_i", "Well... I think so."),
    _case("ellipsis_before_im", "Hmm… I'm not sure. ¦Maybe."),
    _case("ellipsis_end", "I waited... ¦Then it came."),
    _case("ellipsis_four_dots", "I never meant that.... ¦She left the store."),
    _case("ellipsis_spaced_lower", "One habit was weakened . . . was that of combining words."),
    _case("ellipsis_spaced_before_i", "The thing is . . . I didn't mean it."),
    _case("ellipsis_spaced_end", "The thing is . . . ¦Then it ended."),
    # -- a quotation and its citation
    _case("citation_en_dash", '"Stay hungry." – Steve Jobs'),
    _case("citation_em_dash", '"Stay hungry, stay foolish." — Steve Jobs. ¦Next.'),
    _case("citation_horizontal_bar", "“Be yourself.” ― Oscar Wilde"),
    _case("citation_tilde", '"Less is more." ~ Mies'),
    _case("quote_then_lowercase", 'She turned to him, "This is great." she said.'),
    # -- inline numbered and lettered lists
    _case("inline_list_dot_paren", "1.) The first item ¦2.) The second item"),
    _case("inline_list_dot_paren_sentences", "1.) The first item. ¦2.) The second item."),
    _case("inline_list_dot", "1. The first item ¦2. The second item"),
    _case("inline_list_dot_sentences", "1. The first item. ¦2. The second item."),
    _case("inline_list_after_colon", "Steps: 1. Open the app. ¦2. Tap Settings. ¦3. Done."),
    _case("inline_list_letters", "a. The first item ¦b. The second item ¦c. The third list item"),
    _case("inline_list_letters_lower", "Options: a. Red. ¦b. Blue. ¦c. Green."),
    _case("inline_list_capitals", "A. The first item ¦B. The second item"),
    _case("inline_list_two_digits", "8. Eight ¦9. Nine ¦10. Ten ¦11.) Eleven"),
    _case("inline_list_after_a_list_line", "1. Do A ¦2. Do B"),
    _case("inline_list_letter_paren", "Choose: a) Red. ¦b) Blue."),
    _case("number_is_no_marker", "Add 2 and 3 to get 5. ¦Then multiply."),
    _case("letter_is_no_marker", "Solve for x. ¦Then stop."),
    _case("letter_a_is_no_marker", "Use option a. ¦Then restart."),
]

PORTUGUESE = [
    _case("pt_plain", "Olá. ¦Tudo bem?"),
    _case("pt_accent_start", "Pronto. ¦É isso."),
    _case("pt_lower", "Pronto. e depois?"),
    _case("pt_sr", "O Sr. Silva chegou. ¦Depois saiu."),
    _case("pt_sra", "A Sra. Costa ligou."),
    _case("pt_srta", "A Srta. Lima saiu."),
    _case("pt_dr", "O Dr. Souza atende."),
    _case("pt_dra", "A Dra. Ana atende. ¦Ligue já."),
    _case("pt_dra_ordinal", "A Dra.ª Ana atende. ¦Ligue."),
    _case("pt_dr_ordinal", "O Dr.ª Lia veio."),
    _case("pt_prof", "O Prof. Dias explica."),
    _case("pt_profa", "A Profa. Reis explica."),
    _case("pt_pex", "Frutas, p. ex. Maçã, são boas."),
    _case("pt_por_ex", "Frutas, por ex. Banana, são boas."),
    _case("pt_etc_lower", "Maçã, pera etc. são frutas."),
    _case("pt_etc_upper", "Maçã, pera etc. ¦Depois, uva."),
    _case("pt_numero", "Casa nº 5. ¦Depois vire."),
    _case("pt_numero_dot", "Casa n.º 5 fica ali."),
    _case("pt_pag", "Veja a pág. 12 do livro."),
    _case("pt_pag_upper", "Veja a pág. Seguinte."),
    _case("pt_av", "Fica na Av. Paulista. ¦Venha."),
    _case("pt_tel", "Ligue no tel. 3333-4444 hoje."),
    _case("pt_cia", "A Souza & Cia. Ltda. vende."),
    _case("pt_ltda_upper", "Comprei na Acme Ltda. ¦Ela entrega."),
    _case("pt_sa", "A Vale S.A. Informou lucro."),
    _case("pt_vexa", "V.Exa. Decide hoje."),
    _case("pt_money", "Custa R$ 12,50 hoje. ¦Pague já."),
    _case("pt_money_thousands", "Custa R$ 1.234,56. ¦Pague já."),
    _case("pt_money_end", "O total é R$ 99,90. ¦Obrigado."),
    _case("pt_month_number", "Vence em jan. 2025 sem juros."),
    _case("pt_art", "Conforme o art. 5 da lei."),
    _case("pt_initials", "J. Silva escreveu. ¦Depois leu."),
    _case("pt_question", "Você vem? ¦Sim, vou."),
    _case("pt_exclaim", "Que ótimo! ¦Obrigado."),
    _case("pt_interrobang", "Sério?! ¦Não acredito."),
    _case("pt_ellipsis_lower", "Bem... talvez amanhã."),
    _case("pt_ellipsis_upper", "Bem… ¦Talvez amanhã."),
    _case("pt_quote", 'Ele disse "Pare." ¦Depois saiu.'),
    _case("pt_guillemets", "Ele disse «Pare.» ¦Depois saiu."),
    _case("pt_inverted", "Pronto. ¦¿Qué?"),
    _case("pt_bracket", "(Veja acima.) ¦Próximo."),
    _case("pt_list", "Passos:\n¦1. Abra o app\n¦2. Clique"),
    _case("pt_list_dash", "- um\n¦- dois"),
    _case("pt_heading", "# Título\n¦Texto aqui. ¦Mais."),
    _case("pt_table", "| Item | Preço |\n¦| Pão | R$ 5,00 |\n"),
    _case("pt_fence", "Veja:\n¦```\nSr. X. Y.\n```\n¦Fim."),
    _case("pt_blank", "Parágrafo um.\n\n¦Parágrafo dois."),
    _case("pt_email", "Escreva para ana@exemplo.com.br hoje."),
    _case("pt_url", "Veja https://exemplo.com.br/a.b. ¦Depois volte."),
    _case("pt_file", "Abra o relatorio.pdf agora."),
    _case("pt_version", "Use a versão 3.11.7 agora. ¦Ok."),
    _case("pt_sr_name", "Falei com o Sr. Almeida ontem."),
    _case("pt_sra_then_end", "A Sra. Maria chegou. ¦Ela trouxe bolo."),
    _case("pt_dr_dra", "O Dr. Paulo e a Dra. Ana atendem."),
    _case("pt_pex_lower", "Use frutas, p. ex. maçã e pera."),
    _case("pt_money_end_then", "O total foi R$ 12,50. ¦Pague no caixa."),
    _case("pt_money_inside", "Paguei R$ 1.299,90 no total."),
    _case("pt_numero_order", "O pedido n.º 4412 foi enviado."),
    _case("pt_numero_capital", "Pedido N.º 4412 enviado. ¦Obrigado."),
    _case("pt_numero_period", "Veja o nº. 12 da lista."),
    _case("pt_numero_sign", "Fica no N°. 300 da rua."),
    _case("pt_av_paulista", "Moro na Av. Paulista, 1000."),
    _case("pt_alameda", "Fica na Al. Santos. ¦Venha."),
    _case("pt_rua", "Fica na R. Augusta, 500."),
    _case("pt_praca", "Encontre-me na Pça. Roosevelt hoje."),
    _case("pt_rodovia", "Siga pela Rod. Anchieta até o fim."),
    _case("pt_capitao", "O Cap. Nascimento chegou."),
    _case("pt_capitulo", "Leia o cap. 3 hoje."),
    _case("pt_seculo", "Isso foi no séc. XIX. ¦Depois mudou."),
    _case("pt_padre", "O Pe. Antônio rezou a missa."),
    _case("pt_engenheiro", "O Eng. Carlos assinou."),
    _case("pt_acronym_end", "Moro nos E.U.A. ¦Depois voltei."),
    _case("pt_sa_end", "Trabalho na Acme S.A. ¦Ela paga bem."),
    _case("pt_letter_end", "Tome vitamina C. ¦Ela ajuda."),
    _case("pt_initial_middle", "O poeta Carlos D. Andrade escreveu."),
    _case("pt_ellipsis_eu", "Bem… ¦Eu acho que sim."),
    _case("pt_inline_list", "Passos: 1. Abra o app. ¦2. Toque em Ajustes. ¦3. Pronto."),
    _case("pt_inline_list_letters", "Opções: a) Pix. ¦b) Boleto. ¦c) Cartão."),
    _case("pt_inline_list_dot_paren", "1.) Abra o app ¦2.) Toque em Ajustes"),
    _case("pt_citation_guillemets", "«Só sei que nada sei.» — Sócrates"),
    _case("pt_citation", '"Tudo vale a pena." – Fernando Pessoa'),
    _case("pt_v_exa_spaced", "V. Exa. Decide hoje."),
    _case("pt_v_sa_spaced", "V. Sa. Receberá a carta."),
    _case("pt_et_al", "Silva et al. Mostraram isso."),
    _case("pt_folhas", "Veja fls. 12 do processo."),
    _case("pt_inciso", "Conforme o art. 5º, inc. II da lei."),
    _case("pt_tel_area_code", "Ligue no tel. (11) 3333-4444 hoje."),
    _case("pt_number_is_no_marker", "Somei 2 e 3 e deu 5. ¦Depois dividi."),
    _case("pt_ver_number", "Instale a ver. 10.0.0.1 hoje."),
    _case("pt_ver_verb", "Vou ver. ¦Depois te conto."),
    _case("pt_ref_number", "Cite a ref. 2024-17 ao ligar."),
]

#: CJK text (Japanese, Chinese) is written without spaces: `。！？．｡` end a sentence with no
#: whitespace after them, in either language's segmenter.
CJK = [
    _case("ja_three", "今日は晴れです。¦明日は雨でしょう！¦本当？"),
    _case("zh_three", "你好！¦我是小明。¦你呢？"),
    _case("ja_value", "カードは4111 1111 1111 1111です。¦ありがとうございます。"),
    _case("zh_email", "我的邮箱是jane.doe@example.com，谢谢。¦请回复。"),
    _case("ja_closer", "彼は「はい。」¦次の文です。"),
    _case("ja_quotative_to", "彼は「行きます。」と言った。¦次の文です。"),
    _case("ja_quotative_tte", "「はい。」って言った。¦とにかく行こう。"),
    _case("ja_quotes", "「こんにちは。」¦『はい。』"),
    _case("ja_full_width_paren", "（注意してください。）¦次へ。"),
    _case("ja_lenticular", "【重要です！】¦読んで。"),
    _case("zh_quote", "他说：“我来了。”¦然后走了。"),
    _case("ja_full_width_stop", "これはペンです．¦それは本です．"),
    _case("ja_full_width_decimal", "円周率は３．１４です。"),
    _case("ja_full_width_domain", "ｅｘａｍｐｌｅ．ｃｏｍを見て。"),
    _case("ja_halfwidth_stop", "ﾃｽﾄです｡¦次です｡"),
    _case("ja_run", "本当？！¦はい。"),
    _case("zh_ellipsis_inside", "终于……我到了。"),
    _case("ja_space_after", "はい。 ¦次です。"),
    _case("ja_newline", "一行目。\n¦二行目。"),
    _case("ja_then_english", "了解です。¦Thanks."),
    _case("ja_then_lowercase_latin", "了解です。¦iPhoneで開いて。"),
    _case("ja_then_digit", "手順は3つです。¦1つ目は簡単です。"),
    _case("ja_ascii_period_without_space", "これは.テスト"),
    _case("english_then_ja", "Done. ¦完了です。"),
    _case("ja_then_fence", "見て。\n¦```\ncode。\n```\n¦次へ。"),
    _case("ja_list", "手順：\n¦1. 開く。¦閉じる。\n¦2. 終わり"),
    _case("ja_comma_after", "はい。、次"),
    # A full-width stop after a value's end in closers, then a Latin letter: the value's
    # characters run on (no end); after CJK in closers the stop ends a sentence.
    _case("value_in_emphasis_then_latin", "パスワードは**S3cret!Pw9**。No"),
    _case("value_in_brackets_then_latin", "mysql -p(hunter2!)。acco"),
    _case("value_in_quotes_then_latin", "パスワード：「Qz7xK2mP9w」。va"),
    _case("cjk_in_emphasis_then_latin", "**こんにちは**。¦Then"),
    _case("cjk_in_quotes_then_latin", "「こんにちは」。¦Then"),
    _case("value_in_closers_then_cjk", "「Qz7xK2mP9w」。¦次です。"),
    _case("value_in_closers_space_then_latin", "(see above)。 ¦Then"),
    _case("cjk_then_version", "了解です。¦ver. 10.0.0.1 です。"),
    _case("latin_after_cjk_stop_then_version", "Update。ver. 10.0.0.1"),
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
    "ver.",
    "ref.",
    "no.",
    "AB",
    "AB123456C",
    "A1",
    "12",
    "_",
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
                          r"(?!(?<=[A-Za-z0-9０-９Ａ-Ｚａ-ｚ\s:=：][．！？。｡])[A-Za-z0-9０-９Ａ-Ｚａ-ｚ])"
                          rf"|[{_ENDS}]+[{_CLOSE}]*(?=\s)|\n")


@settings(max_examples=500)
@given(st.text(alphabet="ab :=.!?…\n\"')]}»”’*_`\t。！？．｡」』）：", max_size=16),
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
