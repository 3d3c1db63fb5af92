"""The case filter of the cross-check scripts: `ZP_CASE=<part>[,<part>…]` or `--only …`.

The same rule as the Rust tests (tests/rust/support/select.rs): a case is kept when its name
contains one of the comma-separated parts. `--only` overrides `ZP_CASE`. The script prints how
many cases were kept and which, and fails when the filter keeps none (never a silent pass).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from typing import TypeVar

ENV = "ZP_CASE"
T = TypeVar("T")


def add_argument(ap: argparse.ArgumentParser) -> None:
    """Adds `--only PART[,PART…]` (default: the ZP_CASE environment variable)."""
    ap.add_argument(
        "--only",
        default=os.environ.get(ENV, ""),
        metavar="PART[,PART…]",
        help=f"only cases whose name contains one of the parts (default: ${ENV})",
    )


def parse(spec: str | None) -> list[str]:
    """The non-empty, stripped parts of `spec` (empty: no filter)."""
    return [p.strip() for p in (spec or "").split(",") if p.strip()]


def select(items: Iterable[T], name: Callable[[T], str], spec: str | None, what: str) -> list[T] | None:
    """The items whose case name contains one of the parts of `spec`, printing the selection;
    all items when `spec` is empty; None (after printing why) when the filter keeps none."""
    items = list(items)
    parts = parse(spec)
    if not parts:
        return items
    kept = [x for x in items if any(p in name(x) for p in parts)]
    names = sorted({name(x) for x in kept})
    if not kept:
        every = ", ".join(sorted({name(x) for x in items}))
        print(f"FAILED: case filter {','.join(parts)} (--only / {ENV}) matches none of the {len(items)} {what}: {every}")
        return None
    print(f"case filter {','.join(parts)}: {len(kept)} of {len(items)} {what} ({', '.join(names)})", flush=True)
    return kept
