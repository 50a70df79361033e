"""Writes a tiny llama-architecture model with random weights (GGUF).

No weights can be downloaded here, and none are needed: the test only needs
a model llama.cpp loads and runs. Its vocabulary is SentencePiece-style with
byte fallback (every byte is a token), so any text and any JSON the server's
grammar asks for can be written. Output of random weights is nonsense, but
output constrained by a grammar (a forced tool call) is valid JSON.

One bias keeps that JSON short: every token's embedding shares a large first
component, and the output rows of `"` and `}` weigh it most, so wherever the
grammar allows them those two come first (a string ends at once, an object
closes): a forced call is `{"file_path": ""}`-like in a few tokens instead of
a string that never ends.

usage: tiny_gguf.py OUT.gguf
"""

import sys

import gguf
import numpy as np

EMBED, FFN, HEADS, LAYERS, CONTEXT = 64, 128, 4, 1, 16384


def vocabulary():
    tokens = [b"<unk>", b"<s>", b"</s>"]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    for byte in range(256):
        tokens.append(f"<0x{byte:02X}>".encode())
        types.append(gguf.TokenType.BYTE)
    # The word boundary piece SentencePiece text needs.
    tokens.append("\u2581".encode())
    types.append(gguf.TokenType.NORMAL)
    scores = [0.0] * 3 + [-1000.0] * 256 + [-float(i) for i in range(len(tokens) - 259)]
    return tokens, scores, types


def main(out):
    rng = np.random.default_rng(20261127)
    tokens, scores, types = vocabulary()
    writer = gguf.GGUFWriter(out, "llama")
    writer.add_name("tack-tiny-random")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(EMBED)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(EMBED // HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_add_bos_token(True)
    vocab = len(tokens)

    def weights(*shape):
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    embeddings = weights(vocab, EMBED)
    embeddings[:, 0] = 4.0
    writer.add_tensor("token_embd.weight", embeddings)
    for layer in range(LAYERS):
        block = f"blk.{layer}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(EMBED, dtype=np.float32))
        for name in ["attn_q", "attn_k", "attn_v", "attn_output"]:
            writer.add_tensor(f"{block}.{name}.weight", weights(EMBED, EMBED))
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(EMBED, dtype=np.float32))
        writer.add_tensor(f"{block}.ffn_gate.weight", weights(FFN, EMBED))
        writer.add_tensor(f"{block}.ffn_up.weight", weights(FFN, EMBED))
        writer.add_tensor(f"{block}.ffn_down.weight", weights(EMBED, FFN))
    writer.add_tensor("output_norm.weight", np.ones(EMBED, dtype=np.float32))
    output = weights(vocab, EMBED)
    output[:, 0] = 0.0
    output[3 + ord('"'), 0] = 20.0
    output[3 + ord("}"), 0] = 18.0
    writer.add_tensor("output.weight", output)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main(sys.argv[1])
