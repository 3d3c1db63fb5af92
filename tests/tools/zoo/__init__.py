"""The architecture zoo behind tests/tools/make_zoo.py (the entry point and CLI).

Modules, in dependency order (each imports only those above it; TF comes in through
goldens.frameworks, after goldens.env's determinism knobs):

    sequence.py  transformer and recurrent nets (tiny ViT, MobileViT block, LSTM / BiLSTM / GRU,
                 realworld's tf_keras fused LSTM with its converter)
    archs.py     Arch and ARCHS: keras.applications nets (weights=None), hand-built nets and
                 sequence.py's, batch left dynamic (recurrent nets: 1), smallest first
    data.py      plausible random samples: images through each family's preprocess_input,
                 MFCC and log-mel frames, int32 token ids; calibration / held-out split; the
                 batch-norm batch
    litert_child.py  one LiteRT run in a child process (LiteRT can abort a process); numpy and
                 LiteRT only, run as a script
    convert.py   TF's side, cached under target/zoo/<arch>/: float, int8, int8_floatio and 16x8
                 conversions (for Arch.isolate ones in child processes: a crash is recorded per
                 variant) and LiteRT BUILTIN_REF outputs on the held-out inputs (operator
                 versions BUILTIN_REF does not register lowered in a copy; else optimized kernels)
    measure.py   our side: `zeropoint inspect`, `run` and `quantize` as subprocesses, compared with
                 the cached LiteRT outputs (max relative error, % bit-exact, SQNR, time)
    results.py   tests/zoo/results.json (merged per architecture) and the committed small
                 cases under tests/zoo/<arch>/

Importing the package itself imports nothing (env must come before TF).
"""
