"""TensorFlow, Keras and LiteRT, imported once (quietly, after goldens.env's knobs) with TF's
determinism settings: single-threaded, op determinism. Other modules import them from here."""

from __future__ import annotations

from .env import apply_env, quiet

apply_env(None)  # the knobs before TF (a no-op when make_goldens.py has applied them)


with quiet():
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.experimental.enable_op_determinism()
    tf.get_logger().setLevel("ERROR")
    import keras
    from ai_edge_litert import schema_py_generated as tfl_schema
    from ai_edge_litert.interpreter import Interpreter, OpResolverType


__all__ = ["Interpreter", "OpResolverType", "keras", "tf", "tfl_schema"]
