"""The zoo's transformer and recurrent architectures (issue 18): a tiny ViT, a MobileViT-style
block, Keras 3 LSTM text classifiers (a WHILE loop with `unroll=False`, the steps laid out in
the main graph with `unroll=True`), a bidirectional LSTM, a GRU keyword spotter, and the
real-world generator's tf_keras LSTM classifier that TF fuses into UNIDIRECTIONAL_SEQUENCE_LSTM
(imported from realworld.recurrent with its converter, not copied). The transformers leave the
batch dynamic, as the rest of the zoo; the recurrent nets have batch 1 (BATCH), as TF's
converter needs for WHILE loops, and one unrolled LSTM is also kept with a dynamic batch."""

from __future__ import annotations

from goldens.frameworks import keras

L = keras.layers


class PositionEmbedding(L.Layer):
    """A learned [tokens, dim] position embedding added to its input (a constant ADD once
    converted), as ViT's."""

    def build(self, shape):
        self.pos = self.add_weight(
            shape=(shape[1], shape[2]), initializer=keras.initializers.RandomNormal(stddev=0.02), name="pos"
        )

    def call(self, x):
        return x + self.pos


def _encoder_block(h, dim: int, heads: int, mlp: int, act, name: str, attention_axes=None):
    """Pre-norm transformer encoder block: LayerNorm, multi-head self-attention, residual;
    LayerNorm, two-layer MLP, residual."""
    x = L.LayerNormalization(epsilon=1e-6, name=name + "_ln1")(h)
    x = L.MultiHeadAttention(heads, dim // heads, attention_axes=attention_axes, name=name + "_mha")(x, x)
    h = L.Add(name=name + "_res1")([h, x])
    x = L.LayerNormalization(epsilon=1e-6, name=name + "_ln2")(h)
    x = L.Dense(mlp, activation=act, name=name + "_mlp1")(x)
    x = L.Dense(dim, name=name + "_mlp2")(x)
    return L.Add(name=name + "_res2")([h, x])


def _gelu_tanh(x):
    return keras.activations.gelu(x, approximate=True)


def tiny_vit() -> keras.Model:
    """32x32 image, 4x4 patches (a stride-4 conv) to 64 tokens of 32, a learned position
    embedding, 2 encoder blocks (2 heads; exact GELU in the first, tanh-approximate GELU in the
    second), LayerNorm, mean over tokens, 10-class head."""
    i = keras.Input((32, 32, 3), name="image")
    h = L.Conv2D(32, 4, strides=4, name="patch_embed")(i)
    h = L.Reshape((64, 32), name="tokens")(h)
    h = PositionEmbedding(name="pos_embed")(h)
    h = _encoder_block(h, 32, 2, 64, "gelu", "enc0")
    h = _encoder_block(h, 32, 2, 64, _gelu_tanh, "enc1")
    h = L.LayerNormalization(epsilon=1e-6, name="final_ln")(h)
    h = L.GlobalAveragePooling1D(name="pool")(h)
    o = L.Dense(10, activation="softmax", name="head")(h)
    return keras.Model(i, o, name="tiny_vit")


def mobilevit_block() -> keras.Model:
    """MobileViT's block on a 32x32 image: a stride-2 conv stem (16x16x16, the skip), local
    3x3 and 1x1 convs to 32 channels, unfold into 2x2 patches (reshape, transpose, reshape to
    [4 pixel positions, 64 patches, 32]), a transformer encoder attending across the 64 patches
    of each pixel position, fold back (the inverse reshape/transpose), a 1x1 projection, concat
    with the skip and a 3x3 fusion conv; pooling and a 10-class head."""
    c, d, p, n = 16, 32, 2, 8  # stem channels, transformer dim, patch side, patches per side
    i = keras.Input((32, 32, 3), name="image")
    skip = L.Conv2D(c, 3, strides=2, padding="same", activation="swish", name="stem")(i)
    x = L.Conv2D(c, 3, padding="same", activation="swish", name="local_3x3")(skip)
    x = L.Conv2D(d, 1, name="local_1x1")(x)
    x = L.Reshape((n, p, n, p, d), name="unfold_split")(x)
    x = L.Permute((2, 4, 1, 3, 5), name="unfold_transpose")(x)
    x = L.Reshape((p * p, n * n, d), name="unfold_patches")(x)
    x = _encoder_block(x, d, 2, 2 * d, "swish", "mvit", attention_axes=(2,))
    x = L.Reshape((p, p, n, n, d), name="fold_split")(x)
    x = L.Permute((3, 1, 4, 2, 5), name="fold_transpose")(x)
    x = L.Reshape((n * p, n * p, d), name="fold_image")(x)
    x = L.Conv2D(c, 1, activation="swish", name="fold_1x1")(x)
    x = L.Concatenate(name="fuse_concat")([skip, x])
    x = L.Conv2D(c, 3, padding="same", activation="swish", name="fuse_3x3")(x)
    x = L.GlobalAveragePooling2D(name="pool")(x)
    o = L.Dense(10, activation="softmax", name="head")(x)
    return keras.Model(i, o, name="mobilevit_block")


TEXT_LEN, TEXT_VOCAB = 16, 200
# Keras 3 LSTM/GRU layers with a dynamic batch give a TensorList whose element shape TF 2.21's
# converter refuses ("'tf.TensorListReserve' op requires element_shape to be static"): WHILE
# models are exported with batch 1, as users must.
BATCH = 1


def _lstm_text(unroll: bool, batch: int | None, name: str) -> keras.Model:
    i = keras.Input((TEXT_LEN,), batch_size=batch, dtype="int32", name="tokens")
    h = L.Embedding(TEXT_VOCAB, 16, name="embed")(i)
    h = L.LSTM(32, unroll=unroll, name="lstm")(h)
    o = L.Dense(4, activation="softmax", name="probs")(h)
    return keras.Model(i, o, name=name)


def lstm_text() -> keras.Model:
    """Token ids [1, 16], Embedding(200, 16), LSTM(32) as a WHILE loop (unroll=False), 4-class
    softmax."""
    return _lstm_text(False, BATCH, "lstm_text")


def lstm_text_unrolled() -> keras.Model:
    """The same classifier with unroll=True: 16 LSTM steps as plain ops, no WHILE."""
    return _lstm_text(True, BATCH, "lstm_text_unrolled")


def lstm_text_unrolled_dynbatch() -> keras.Model:
    """The unrolled classifier with a dynamic batch (only the unrolled form converts so): the
    initial state becomes FILL(zeros) of a computed shape."""
    return _lstm_text(True, None, "lstm_text_unrolled_dynbatch")


def bilstm_text() -> keras.Model:
    """Token ids [1, 16], Embedding(200, 16), Bidirectional(LSTM(16)) (two WHILE loops, one on
    the reversed sequence), 4-class softmax."""
    i = keras.Input((TEXT_LEN,), batch_size=BATCH, dtype="int32", name="tokens")
    h = L.Embedding(TEXT_VOCAB, 16, name="embed")(i)
    h = L.Bidirectional(L.LSTM(16), name="bilstm")(h)
    o = L.Dense(4, activation="softmax", name="probs")(h)
    return keras.Model(i, o, name="bilstm_text")


def gru_kws() -> keras.Model:
    """GRU keyword spotter: 49x40 log-mel frames (batch 1), GRU(32) (a WHILE loop), 12-class
    softmax."""
    i = keras.Input((49, 40), batch_size=BATCH, name="logmel")
    h = L.GRU(32, name="gru")(i)
    o = L.Dense(12, activation="softmax", name="probs")(h)
    return keras.Model(i, o, name="gru_kws")


def lstm_fused():
    """realworld.recurrent's tf_keras classifier (token ids [1, 10] in [0, 50), Embedding,
    LSTM(32) sequences, LSTM(16), 3-class softmax; seeds itself with 34)."""
    from realworld.recurrent import lstm_fused_tf_keras

    return lstm_fused_tf_keras()


def lstm_fused_converter(model):
    """realworld.recurrent's converter of that model (a concrete function: TF fuses the tf_keras
    LSTMs into UNIDIRECTIONAL_SEQUENCE_LSTM)."""
    from realworld.recurrent import FUSED, fused_converter

    assert model is FUSED["lstm_fused"](), "fused_converter converts realworld's cached model"
    return fused_converter("lstm_fused")
