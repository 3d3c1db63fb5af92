#!/usr/bin/env python3
"""Mutation harness: hostile variants of the shipped models through `zeropoint`, LiteRT beside it.

Each mutant is one seed model (tests/golden, tests/realworld, www/assets; small ones) changed
at the byte level or through the schema (tests/tools/mutation/mutators.py), deterministic from
`--seed` and its number. For each mutant:

  * LiteRT (BUILTIN_REF, in a worker process it may crash or hang without harm) loads it, is fed
    seeded inputs of the declared shapes and runs it;
  * `zeropoint inspect`, `zeropoint run` (same inputs) and, on float seeds, `zeropoint quantize`
    (a random mode: int8, int16x8, dynamic, float16) each end in `ok`, `error` (a clean
    refusal), `panic`, `abort` (a signal, e.g. out of memory) or `timeout`;
  * where both ran, our outputs must be LiteRT's, bit for bit ("wrong" otherwise);
  * a model we quantize must load and run in LiteRT with its default resolver ("wrote-invalid"
    otherwise), fed the same samples (quantized with its input parameters where its I/O is
    integer), unless that resolver refuses the input mutant itself with the same message.

Failures: panic, abort, timeout, wrong (and wrote-invalid unless `--allow wrote-invalid`).
Reported beside them, not failures: false rejections (LiteRT runs it, we refuse), grouped by our
message; leniency (we run what LiteRT refuses), grouped by LiteRT's. The report is markdown
(stdout, and `--report FILE`); every failing mutant is kept in `--keep DIR` to reproduce, and
`--corpus DIR` writes every mutant there to seed the cargo-fuzz targets (fuzz/seed.sh).

The last line is "N passed, M failed" (N + M mutants). Exit status 1 on any failure.

Usage:
    python tests/tools/mutate.py --zeropoint target/debug/zeropoint [--count 300] [--seed 1]
        [--jobs 2] [--report FILE] [--keep DIR] [--corpus DIR] [--only PART,…]
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import case_filter
from golden_resolver import REFERENCE_DEFECTS
from mutation.mutators import mutate
from mutation.outcome import FAILURES, LiteRT, Ran, compare_outputs, message_class, run_ours

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SEED_ROOTS = (REPO / "tests" / "golden", REPO / "tests" / "realworld", REPO / "www" / "assets")
MODES = ("int8", "int16x8", "dynamic", "float16")


def seed_models(max_kb: int, only: list[str]) -> list[Path]:
    models = sorted(p for root in SEED_ROOTS for p in root.rglob("*.tflite") if p.stat().st_size <= max_kb * 1024)
    return [p for p in models if not only or any(part in str(p.relative_to(REPO)) for part in only)]


# A mismatch on a model holding an operator BUILTIN_REF computes wrongly (golden_resolver.py
# REFERENCE_DEFECTS) is checked against the model run per operator, that operator on the
# optimized kernels (which the engine follows there) and the others on BUILTIN_REF.


def has_reference_defect(data: bytes) -> bool:
    from ai_edge_litert import schema_py_generated as tfl

    try:
        m = tfl.ModelT.InitFromPackedBuf(bytearray(data), 0)
    except Exception:  # noqa: BLE001 - a mutant that does not parse has no such operator
        return False
    names = {v: k for k, v in vars(tfl.BuiltinOperator).items() if not k.startswith("_")}
    return any(names.get(max(oc.builtinCode, oc.deprecatedBuiltinCode)) in REFERENCE_DEFECTS for oc in (m.operatorCodes or []))


def is_float_seed(path: Path) -> bool:
    return path.name in ("model_float.tflite", "model.tflite") or path.parent.name == "assets"


@dataclass
class Result:
    index: int
    seed_model: str
    kind: str
    what: str
    litert: dict
    ours: dict[str, Ran] = field(default_factory=dict)
    wrong: str | None = None
    # LiteRT gave other outputs when run again on a new interpreter (it read memory nothing
    # wrote: its answer is undefined), so ours is not compared.
    litert_unstable: str | None = None
    wrote_invalid: str | None = None
    # Our quantized file is refused by LiteRT's default resolver as that resolver refuses the
    # input mutant itself (same message): BUILTIN_REF runs the input, XNNPACK does not (a SOFTMAX
    # of rank 7). The file is as valid as its input: reported, not a failure.
    refused_as_input: str | None = None
    mode: str | None = None

    def failures(self, allow: set[str]) -> list[str]:
        out = [f"{cmd} {r.outcome}" for cmd, r in self.ours.items() if r.outcome in FAILURES]
        if self.wrong and "wrong" not in allow:
            out.append(f"wrong: {self.wrong}")
        if self.wrote_invalid and "wrote-invalid" not in allow:
            out.append(f"wrote-invalid: {self.wrote_invalid}")
        return out


class Harness:
    def __init__(self, args: argparse.Namespace, seeds: list[Path], work: Path) -> None:
        self.args = args
        self.seeds = seeds
        self.work = work
        self.local = threading.local()
        self.workers: list[LiteRT] = []
        self.lock = threading.Lock()

    def litert(self) -> LiteRT:
        w = getattr(self.local, "litert", None)
        if w is None:
            w = LiteRT(self.args.timeout)
            self.local.litert = w
            with self.lock:
                self.workers.append(w)
        return w

    def zp(self, *args: str) -> Ran:
        return run_ours([str(self.args.zeropoint), *args], self.args.timeout, self.args.memory_mb)

    def check(self, i: int) -> Result:
        rng = random.Random(f"{self.args.seed}:{i}")
        seed_model = self.seeds[rng.randrange(len(self.seeds))]
        kind, what, data = mutate(seed_model.read_bytes(), rng)
        d = self.work / f"m{i}"
        (d / "in").mkdir(parents=True)
        (d / "ref").mkdir()
        (d / "ours").mkdir()
        model = d / "mutant.tflite"
        model.write_bytes(data)
        if self.args.corpus:
            (self.args.corpus / f"mutant-{self.args.seed}-{i}.tflite").write_bytes(data)
        res = Result(i, str(seed_model.relative_to(REPO)), kind, what, {})
        res.litert = self.litert().call({"op": "run", "model": str(model), "seed": i, "in_dir": str(d / "in"), "out_dir": str(d / "ref")})
        inputs = sorted((d / "in").glob("input_*.npy"), key=lambda p: int(p.stem.split("_")[1]))
        if not inputs:  # LiteRT did not get as far as inputs: feed the seed model's
            seed_in = self.seed_inputs(seed_model)
            inputs = sorted(seed_in.glob("input_*.npy"), key=lambda p: int(p.stem.split("_")[1]))
        # Ours reads "first axis = samples": one sample, whatever the (possibly mutated) batch.
        (d / "ours-in").mkdir()
        for p in inputs:
            np.save(d / "ours-in" / p.name, np.load(p)[None])
        inputs = [d / "ours-in" / p.name for p in inputs]
        res.ours["inspect"] = self.zp("inspect", str(model))
        in_args = [a for p in inputs for a in ("--input", str(p))]
        res.ours["run"] = self.zp("run", str(model), *in_args, "--out-dir", str(d / "ours")) if inputs else Ran("error", "no inputs")
        if res.litert.get("status") == "ran" and res.ours["run"].outcome == "ok":
            detection = b"TFLite_Detection_PostProcess" in data
            count = int(res.litert["outputs"])
            res.wrong = compare_outputs(d / "ours", d / "ref", count, detection)
            if res.wrong:  # is LiteRT's answer defined? Run it again on a new interpreter.
                (d / "ref2").mkdir()
                (d / "in2").mkdir()
                again = self.litert().call({"op": "run", "model": str(model), "seed": i, "in_dir": str(d / "in2"), "out_dir": str(d / "ref2")})
                if again.get("status") == "ran":
                    unstable = compare_outputs(d / "ref2", d / "ref", count, detection)
                    if unstable:
                        res.litert_unstable, res.wrong = f"LiteRT's two runs differ: {unstable}", None
            if res.wrong and has_reference_defect(data):
                # BUILTIN_REF's own result is wrong for this operator: compare with the model run
                # operator by operator, that operator on the optimized kernels and every other on
                # BUILTIN_REF (per_op.py; the goldens' reference for it, goldens/litert.py).
                (d / "ref3").mkdir()
                by_op = self.litert().call({"op": "run_per_op", "model": str(model), "in_dir": str(d / "in"), "out_dir": str(d / "ref3")})
                if by_op.get("status") == "ran" and not compare_outputs(d / "ours", d / "ref3", count, detection):
                    res.litert_unstable, res.wrong = f"BUILTIN_REF's {'/'.join(sorted(REFERENCE_DEFECTS))} defect: ours equals the model run per operator", None
        if is_float_seed(seed_model) and inputs:
            res.mode = rng.choice(MODES)
            out = d / "quantized.tflite"
            data_args = [a for p in inputs for a in ("--data", str(p))]
            io = ["--io", "float"] if res.mode in ("dynamic", "float16") else []
            res.ours["quantize"] = self.zp("quantize", str(model), "-o", str(out), "--mode", res.mode, *io, *data_args)
            if res.ours["quantize"].outcome == "ok":
                # Fed the same samples, quantized with the file's input parameters where its I/O
                # is integer (random integers would leave the domain of ops like RSQRT).
                check = self.litert().call({"op": "load", "model": str(out), "seed": i, "floats": [str(p) for p in inputs]})
                # LiteRT failing the mutant itself at invoke on these inputs (a gather index out of
                # range, boxes it rejects) fails our quantized copy the same way: the data, not
                # the file we wrote.
                both_fail_at_invoke = res.litert.get("stage") == "invoke" and check.get("stage") == "invoke"
                if check.get("status") != "ran" and not both_fail_at_invoke:
                    why = f"{check.get('status')}: {check.get('error', '')[:200]}"
                    same = self.litert().call({"op": "load", "model": str(model), "seed": i, "floats": [str(p) for p in inputs]})
                    if same.get("status") != "ran" and message_class(same.get("error", "")) == message_class(check.get("error", "")):
                        res.refused_as_input = why
                    else:
                        res.wrote_invalid = why
        if res.failures(self.args.allow):
            self.args.keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(model, self.args.keep / f"mutant-{self.args.seed}-{i}.tflite")
        if self.args.rejections and res.litert.get("status") == "ran" and res.ours["run"].outcome == "error":
            self.args.keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(model, self.args.keep / f"rejected-{self.args.seed}-{i}.tflite")
        shutil.rmtree(d, ignore_errors=True)
        return res

    def seed_inputs(self, seed_model: Path) -> Path:
        d = self.work / "seed-inputs" / str(abs(hash(str(seed_model))))
        with self.lock:
            if d.exists():
                return d
            d.mkdir(parents=True)
        (d / "out").mkdir(exist_ok=True)
        self.litert().call({"op": "run", "model": str(seed_model), "seed": 0, "in_dir": str(d), "out_dir": str(d / "out")})
        return d


def report(results: list[Result], args: argparse.Namespace, seconds: float, seeds: int) -> str:
    lines = [
        f"# Mutation harness: {len(results)} mutants of {seeds} seed models (seed {args.seed})",
        "",
        f"`tests/tools/mutate.py --count {args.count} --seed {args.seed}`, {seconds:.0f} s, {args.jobs} job(s), "
        f"{args.timeout:g} s timeout per command, {args.memory_mb} MB memory per command.",
        "",
        "| command | ok | error | panic | abort | timeout |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for cmd in ("inspect", "run", "quantize"):
        c = collections.Counter(r.ours[cmd].outcome for r in results if cmd in r.ours)
        lines.append(f"| {cmd} | {c['ok']} | {c['error']} | {c['panic']} | {c['abort']} | {c['timeout']} |")
    lit = collections.Counter(r.litert.get("status", "?") for r in results)
    both = [r for r in results if r.litert.get("status") == "ran" and r.ours["run"].outcome == "ok"]
    lines += [
        "",
        f"LiteRT (BUILTIN_REF): ran {lit['ran']}, refused {lit['refused']}, crashed {lit['crashed']}, timed out {lit['timeout']}.",
        f"Both ran: {len(both)}; outputs identical on {sum(1 for r in both if not r.wrong and not r.litert_unstable)}, "
        f"wrong answers {sum(1 for r in both if r.wrong)}, LiteRT's own outputs differ between two runs (undefined, "
        f"not compared) on {sum(1 for r in both if r.litert_unstable and 'two runs' in r.litert_unstable)}, "
        f"BUILTIN_REF's SUM defect (ours equals the model run per operator, SUM on the optimized kernels) on "
        f"{sum(1 for r in both if r.litert_unstable and 'defect' in r.litert_unstable)}.",
        f"Quantized by us: {sum(1 for r in results if r.ours.get('quantize', Ran('', '')).outcome == 'ok')}; "
        f"LiteRT refused or crashed on {sum(1 for r in results if r.wrote_invalid)} of them, and its default "
        f"resolver refused {sum(1 for r in results if r.refused_as_input)} more as it refuses their input mutant "
        f"(same message; not failures).",
        "",
        "By mutation class (mutants · LiteRT ran · we ran · false rejections · we ran what LiteRT refused):",
        "",
        "| class | mutants | LiteRT ran | we ran | false rejections | lenient |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    by_kind: dict[str, list[Result]] = collections.defaultdict(list)
    for r in results:
        by_kind[r.kind].append(r)
    for kind in sorted(by_kind):
        rs = by_kind[kind]
        lr = sum(1 for r in rs if r.litert.get("status") == "ran")
        ours = sum(1 for r in rs if r.ours["run"].outcome == "ok")
        fr = sum(1 for r in rs if r.litert.get("status") == "ran" and r.ours["run"].outcome == "error")
        le = sum(1 for r in rs if r.litert.get("status") == "refused" and r.ours["run"].outcome == "ok")
        lines.append(f"| {kind} | {len(rs)} | {lr} | {ours} | {fr} | {le} |")

    def grouped(title: str, items: list[str]) -> None:
        lines.extend(["", f"{title} ({len(items)}):", ""])
        for msg, n in collections.Counter(items).most_common(args.top):
            lines.append(f"- {n} × {msg}")

    grouped(
        "False rejections: LiteRT runs it, `zeropoint run` refuses — by our message",
        [message_class(r.ours["run"].message) for r in results if r.litert.get("status") == "ran" and r.ours["run"].outcome == "error"],
    )
    grouped(
        "Leniency: we run what LiteRT refuses — by LiteRT's message",
        [message_class(r.litert.get("error", "")) for r in results if r.litert.get("status") == "refused" and r.ours["run"].outcome == "ok"],
    )
    grouped("Quantized models LiteRT refuses", [f"{r.mode}: {message_class(r.wrote_invalid or '')}" for r in results if r.wrote_invalid])
    failing = [r for r in results if r.failures(args.allow)]
    lines.extend(["", f"Failures ({len(failing)}):", ""])
    for r in failing[: args.top * 3]:
        lines.append(f"- mutant {r.index} of `{r.seed_model}` ({r.kind}: {r.what}): {'; '.join(r.failures(args.allow))[:400]}")
    return "\n".join(lines) + "\n"


def write_rejections(results: list[Result], args: argparse.Namespace) -> None:
    """Every false rejection as one JSON line, its mutant kept beside the failures."""
    rows = []
    for r in results:
        if r.litert.get("status") == "ran" and r.ours["run"].outcome == "error":
            rows.append({"mutant": r.index, "seed_model": r.seed_model, "kind": r.kind, "what": r.what,
                         "class": message_class(r.ours["run"].message), "message": r.ours["run"].message})
    args.rejections.parent.mkdir(parents=True, exist_ok=True)
    args.rejections.write_text("".join(json.dumps(row) + "\n" for row in rows))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zeropoint", type=Path, required=True)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per command (ours and LiteRT's)")
    ap.add_argument("--memory-mb", type=int, default=4096, help="address-space limit of each of our commands")
    ap.add_argument("--max-seed-kb", type=int, default=160, help="seed models up to this size")
    ap.add_argument("--report", type=Path)
    ap.add_argument("--keep", type=Path, default=REPO / "artifacts" / "mutants")
    ap.add_argument("--corpus", type=Path, help="also write every mutant here (cargo-fuzz seeds)")
    ap.add_argument("--allow", default="", help="comma-separated failure kinds reported but not failed (wrote-invalid)")
    ap.add_argument("--top", type=int, default=15, help="rows per grouped list")
    ap.add_argument(
        "--rejections",
        type=Path,
        help="write every false rejection here (JSON lines: mutant, seed model, mutation, our whole message), "
        "and keep its mutant in --keep, to work through them one by one",
    )
    case_filter.add_argument(ap)
    args = ap.parse_args()
    args.allow = set(case_filter.parse(args.allow))
    seeds = seed_models(args.max_seed_kb, case_filter.parse(args.only))
    if not seeds:
        print("no seed models (check --only / --max-seed-kb)", file=sys.stderr)
        return 1
    if args.corpus:
        args.corpus.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="zp-mutate-") as tmp:
        h = Harness(args, seeds, Path(tmp))
        try:
            with ThreadPoolExecutor(args.jobs) as pool:
                results = list(pool.map(h.check, range(args.count)))
        finally:
            for w in h.workers:
                w.close()
    text = report(results, args, time.monotonic() - started, len(seeds))
    if args.rejections:
        write_rejections(results, args)
    print(text)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text)
    failed = sum(1 for r in results if r.failures(args.allow))
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
