"""The long agreement fuzz: seeded random replies (tests/engine/fuzz_texts.py) screened on the
request side, as a whole reply and streamed in random cuts, every class set to redact; prints
each text whose outputs differ, and the rate.

    python tests/bench/fuzz_agreement.py [--seed 0] [--n 6000] [--jobs 2] [--show 20]
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))

from fuzz_texts import texts  # noqa: E402
from released import REDACT_ALL  # noqa: E402

from replyguard.engine.reply import screen_reply  # noqa: E402
from replyguard.engine.screen import screen_text  # noqa: E402


def outputs(text: str) -> dict[str, str]:
    """The text as released on each side: request, whole reply, three random-cut streams."""
    out = {"request": screen_text(text, REDACT_ALL, "turn").text,
           "whole": screen_reply(text, REDACT_ALL)[0]}
    for seed in range(3):
        out[f"stream{seed}"] = screen_reply(text, REDACT_ALL, chunks=len(text) // 3 + 2,
                                            seed=seed)[0]
    return out


def _check(text: str) -> tuple[str, dict[str, str]] | None:
    out = outputs(text)
    return None if len(set(out.values())) == 1 else (text, out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=6000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show", type=int, default=20)
    args = parser.parse_args()
    batch = texts(args.seed, args.n)
    with ProcessPoolExecutor(args.jobs) as pool:
        found = [r for r in pool.map(_check, batch, chunksize=50) if r is not None]
    for text, out in found[: args.show]:
        print(repr(text))
        for side, released in out.items():
            print(f"  {side:8} {released!r}")
    print(f"{len(found)} of {len(batch)} disagree ({100 * len(found) / len(batch):.2f}%)")


if __name__ == "__main__":
    main()
