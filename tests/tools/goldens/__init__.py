"""The golden-data generator behind tests/tools/make_goldens.py (the entry point and CLI).

Modules, in dependency order (each imports only those above it):

    env.py         determinism / quietness knobs that must be in place before TF is imported
                   (re-execution with PYTHONHASHSEED=0 etc.), quiet()
    frameworks.py  TF, Keras and LiteRT, imported once after env's knobs, single-threaded, op determinism
    variants.py    Variant and the converter settings of each, LiteRT op resolvers, tolerances and
                   their rule, expected-failure stages, convert()
    litert.py      LiteRT runs (make_interpreter, run_model, trace_model, quantize), diff_stats,
                   model introspection (model_ops, tensor_types, I/O details, input order)
    registry.py    CaseData, CaseSpec, the CASES registry and @case, seed_everything, train_and_freeze
    data.py        synthetic tasks: procedural shape/stripe images, a tabular rule, calib/test split
    models.py      whole-model cases (@case functions)
    single_op.py   In (an input's shape and sample distribution), op_case(), weight setters
    op_cases.py    single-operator cases (op_case calls)
    activation_split.py, pad_fold.py  edits of a converted float model (standalone activations,
                   PADs split out of convolutions) and TF's quantizer run on it; pad_fold.py
                   registers its padfold_* cases
    writer.py      output paths, TOML values, .npy bytes, CaseWriter, manifest.json
    generate.py    generate_case (one case folder), labelled test sets; importing it registers
                   every case (models first, then single-op cases: the --list order)

Importing the package itself imports nothing (env must come before TF).
"""
