"""The mutation harness's parts (tests/tools/mutate.py): mutants, the LiteRT side, outcomes."""
