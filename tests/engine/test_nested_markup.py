"""Values inside nested or stray markup, and the markup left around a mask.

A value is read through any nesting of emphasis, code marks and inline tags (`**_4111 …_**`,
`_<b>4111 …</b>_`, `_`…`_`), through marks written as references (`&#95;`), through a Markdown
escape glued to a letter of a script written without spaces (`カードは\\_4111…`), across
separators (CRLF, tabs between a card's groups in prose, hyphens padded by spaces, a stray
`_`), and a mask whose value holds one half of a tag or mark pair takes in the other half
right outside it, so that the markup left around it is balanced. Every row is checked on
the request side, as a whole reply, and cut at every position (`every_way`); ordinary
Markdown and HTML prose comes back byte for byte."""

from __future__ import annotations

import pytest
from released import cases, every_way

#: (text, as released) by what disguises the value.
MASKED: dict[str, list[tuple[str, str]]] = {
    "nested": [
        ('Your card is **_4539 1488 0343 6467_** on file.',
         'Your card is **_**** 6467_** on file.'),
        ('Your SSN is *_536-22-8841_*.', 'Your SSN is *_***8841_*.'),
        ('IBAN: **_GB82 WEST 1234 5698 7654 32_**', 'IBAN: **_GB** **** 5432_**'),
        ('Email **_jane.doe@example.com_** for help.', 'Email **_j***@example.com_** for help.'),
        ('Call *__+1 202 555 0143__* today.', 'Call *__***0143__* today.'),
        ('Card: ~~_4539 1488 0343 6467_~~ (expired)', 'Card: ~~_**** 6467_~~ (expired)'),
        ('Card: _<b>4539 1488 0343 6467</b>_', 'Card: _<b>**** 6467</b>_'),
        ('my card is _4539 1488 0343 <span>6467</span>_, is it on file?',
         'my card is _**** 6467_, is it on file?'),
        ('Password: _`Qz7xK2mP9w`_', 'Password: _`****`_'),
        ('Card: ***_~~4539 1488 0343 6467~~_***', 'Card: ***_~~**** 6467~~_***'),
        ('Card: _**<b>4539 1488 0343 6467</b>**_ ok', 'Card: _**<b>**** 6467</b>**_ ok'),
        ('Card: _<i><b>4539 1488 0343 6467</b></i>_ ok', 'Card: _<i><b>**** 6467</b></i>_ ok'),
        ('Card: _`4539 1488 0343 6467`_ ok', 'Card: _`**** 6467`_ ok'),
        ('Card: _&#95;4539 1488 0343 6467&#95;_ ok', 'Card: _&#95;**** 6467&#95;_ ok'),
        ('Your key is &#95;536-22-8841_. Keep it safe.',
         'Your key is &#95;***8841_. Keep it safe.'),
        ('my card is 4539 _1488&shy;_ 0343 6467, ok', 'my card is **** 6467, ok'),
        ('Card: &ast;&ast;4539 1488 0343 6467&ast;&ast; ok',
         'Card: &ast;&ast;**** 6467&ast;&ast; ok'),
        ('Password: *_Qz7xK2mP9w_*', 'Password: *_****_*'),
        ('**Password:** **_Qz7xK2mP9w_**', '**Password:** **_****_**'),
        ('My IP is **_192.0.2.44_** now.', 'My IP is **_***.***.***.44_** now.'),
    ],
    "escaped": [
        ('カードは\\_4539 1488 0343 6467\\_です。', 'カードは\\_**** 6467\\_です。'),
        ('カードは\\*4539 1488 0343 6467\\*です。', 'カードは\\***** 6467\\*です。'),
        ('SSNは\\_536-22-8841\\_です。', 'SSNは\\_***8841\\_です。'),
        ('我的是\\_sk-proj-Ab3dEf7Gh9Jk2Lm4Np6Qr8StUv\\_，谢谢。',
         '我的是\\_sk-proj-****StUv\\_，谢谢。'),
        ('カードは\\_4539 1488 0343 6467です。', 'カードは\\_**** 6467です。'),
        ('カード：\\_4539 1488 0343 6467\\_。', 'カード：\\_**** 6467\\_。'),
        ('カードは\\\\_4539 1488 0343 6467\\\\_です。', 'カードは\\\\_**** 6467\\\\_です。'),
        ('Your key is \\__4539 1488 0343 6467_\\_. Keep it safe.',
         'Your key is \\__**** 6467_\\_. Keep it safe.'),
        ('x _\\_4539 1488 0343 6467\\__ y', 'x _\\_**** 6467\\__ y'),
        ('カードは\\_`4539 1488 0343 6467`\\_です。', 'カードは\\_`**** 6467`\\_です。'),
    ],
    "separators": [
        ('my card is _4539\r\n1488\r\n0343\r\n6467_, ok', 'my card is _**** 6467_, ok'),
        ('Your number 4539\t1488\t0343\t6467 is on file.', 'Your number **** 6467 is on file.'),
        ('Your number 529 - 982 - 247 - 25 is on file.', 'Your number ***4725 is on file.'),
        ('NINO: AB - 12 - 34 - 56 - C', 'NINO: ***456C'),
        ('Card: 4539 1488 0343 6467_ ok', 'Card: **** 6467_ ok'),
        ('SSN: 536-22-8841_ ok', 'SSN: ***8841_ ok'),
        ('Card: _4539 1488 0343 6467 ok', 'Card: _**** 6467 ok'),
        ('my card is ５２９．＊＊９８２＊＊．２４７．２５, is it on file?',
         'my card is ***4725, is it on file?'),
    ],
    "balanced": [
        ('my card is 4539 1488 0343 <span>6467</span>, ok', 'my card is **** 6467, ok'),
        ('Card <b>4111</b> 1111 1111 1111', 'Card **** 1111'),
        ('Card: **4111** 1111 1111 1111', 'Card: **** 1111'),
        ('SSN <b>123</b>-45-6789 ok', 'SSN ***6789 ok'),
        ('Card 4111 1111 1111 **1111** ok', 'Card **** 1111 ok'),
        ('*4111* 1111 1111 1111', '**** 1111'),
        ('Card: <B>4111</B> 1111 1111 <i>1111</i> ok', 'Card: **** 1111 ok'),
        ('Password: <b>Qz7x</b><i>K2mP9w</i> ok', 'Password: **** ok'),
        ('Password: <span>Qz7x</span><span>K2mP9w</span>', 'Password: <span>****</span>'),
        ('<b>Card 4111 1111 1111 1111</b>', '<b>Card **** 1111</b>'),
        ('Card <td>4111 1111 1111 1111</td>', 'Card <td>**** 1111</td>'),
        ('<table><tr><td>4003</td><td>4004</td></tr></table>',
         '<table><tr><td>4003</td><td>4004</td></tr></table>'),
    ],
}


@pytest.mark.parametrize(("text", "screened"), cases(MASKED))
def test_a_value_in_markup_is_masked_the_same_every_way(text: str, screened: str) -> None:
    assert every_way(text) == {screened}


#: Ordinary Markdown and HTML prose, tables of numbers and names: nothing to mask.
UNCHANGED = [
    'Use **_bold italic_** and *_this_* or ~~_that_~~ here.',
    'Call `__init__` or _`x`_ then **_done_**.',
    'The _<b>value</b>_ is _good <span>here</span>_, ok.',
    'Escape \\_this\\_ and \\*that\\* in Markdown.',
    'Use ghp\\_abc and DB\\_PASSWORD and \\_\\_init\\_\\_ ok.',
    'これは\\\\です。',
    '変数は\\_private\\_です。',
    'Use var_1_ and v1.2_ or __init__ and snake_case_ 12_ ok.',
    '4539\t1488\t0343\t6467',
    'Q1\t4539\t1488\t0343\t6467\nQ2\t1\t2\t3\t4',
    'year\t2019\t2020\t2021\t2022',
    'Total: 100 - 200 - 300 - 40 = x',
    'The range AB - 12 - 34 - 56 - E here',
    'これです。＊＊次＊＊です。',
    'Use &#42;&#42;bold&#42;&#42; and 5 &#42; 3 = 15.',
    '<p>Hello <b>world</b>, <i>again</i>.</p>',
    '*a* _b_ **c** __d__ ~~e~~ `f` <u>g</u>',
    'Tabs\tbetween\twords\tare\tkept.',
    'Version 1.2.3_beta and file_2024_ are names.',
]


@pytest.mark.parametrize("text", UNCHANGED)
def test_markup_without_a_value_comes_back_as_it_is(text: str) -> None:
    assert every_way(text) == {text}
