"""What an editor must show for a binary tokenizer file or a WordPiece vocab.txt, worked out
with each format's own library (sentencepiece, gguf, tokenizers), never with tokenizer-lsp.
Used by scripts/nvim-e2e.sh (imported) and scripts/emacs-e2e.sh (run):

    python tests/editors/format_facts.py KIND PATH [TOKEN] > facts.json   # KIND: model gguf wordpiece
"""

import json
import sys

HEADER_LINES = 2  # the decoded view: its header line and its column titles, then one row per token
SAMPLE = 997  # the rows compared: a few ids and every SAMPLE-th one


def _sample(n, extra=()):
    return sorted({0, 1, 2, 3, n - 1, *range(0, n, SAMPLE), *extra})


def facts(kind: str, path: str, token: str = "") -> dict | None:
    if kind == "model":
        import sentencepiece

        sp = sentencepiece.SentencePieceProcessor(model_file=path)
        n = sp.get_piece_size()
        the = sp.piece_to_id("\u2581the")
        piece = sp.id_to_piece(the)
        byte_ids = [i for i in range(n) if sp.is_byte(i)]
        return {
            "size": n,
            "header_lines": HEADER_LINES,
            "rows": [{"id": i, "piece": sp.id_to_piece(i)} for i in _sample(n, [the, *byte_ids[:3]])],
            "hover": {
                "id": the,
                "piece": piece,
                "hex": " ".join(f"{b:02X}" for b in piece.replace("\u2581", " ").encode()),
            },
            # byte pieces <0x80>..<0xFF>: no UTF-8 text alone (utf8-fragment)
            "fragments": [i for i in byte_ids if int(sp.id_to_piece(i)[3:5], 16) >= 0x80],
        }
    if kind == "gguf":
        import gguf

        field = gguf.GGUFReader(path).fields["tokenizer.ggml.tokens"]
        tokens = [bytes(field.parts[i]).decode("utf-8") for i in field.data]
        return {
            "size": len(tokens),
            "header_lines": HEADER_LINES,
            "rows": [{"id": i, "piece": tokens[i]} for i in _sample(len(tokens))],
        }
    if kind == "wordpiece":
        from tokenizers.models import WordPiece

        return {"id": WordPiece.read_file(path)[token], "token": token}
    return None


if __name__ == "__main__":
    json.dump(facts(*sys.argv[1:4]), sys.stdout, ensure_ascii=False)
