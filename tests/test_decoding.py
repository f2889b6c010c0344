from hypothesis import given
from hypothesis import strategies as st

from tokenizer_lsp.decoding import BYTE_TO_CHAR, CHAR_TO_BYTE, Scheme, byte_level_decode, byte_level_encode, classify, decode_token
from tokenizer_lsp.decoding.bulk import byte_level_faults
from tokenizer_lsp.decoding.display import code_span, visible_text
from tokenizer_lsp.decoding.utf8 import Utf8Kind, describe_fragment, short_fragment_kind


def test_byte_map_known_points():
    assert BYTE_TO_CHAR[0x20] == "Ġ" and BYTE_TO_CHAR[0x0A] == "Ċ" and BYTE_TO_CHAR[0x09] == "ĉ"
    assert BYTE_TO_CHAR[0x0D] == "č" and BYTE_TO_CHAR[0x00] == "Ā" and BYTE_TO_CHAR[0x7F] == "ġ"
    assert BYTE_TO_CHAR[0xA0] == "ł" and BYTE_TO_CHAR[0xAD] == "Ń"
    assert BYTE_TO_CHAR[ord("a")] == "a" and BYTE_TO_CHAR[0xE9] == "é"
    assert len(set(BYTE_TO_CHAR)) == 256 and max(map(ord, BYTE_TO_CHAR)) == 0x143


@given(st.binary(max_size=64))
def test_decoding_inverts_encoding(data):
    stored = byte_level_encode(data)
    assert byte_level_decode(stored) == data
    assert all(c in CHAR_TO_BYTE for c in stored)


@given(st.binary(max_size=16))
def test_classification_agrees_with_python(data):
    kind = classify(data)
    try:
        data.decode("utf-8")
        assert kind is Utf8Kind.VALID
    except UnicodeDecodeError as err:
        assert kind is not Utf8Kind.VALID
        if data and all(0x80 <= b <= 0xBF for b in data):
            assert kind is Utf8Kind.CONTINUATION
        elif kind is Utf8Kind.INCOMPLETE:
            # the only fault is a cut at the end: some completion makes it valid
            assert err.reason == "unexpected end of data"
            assert any(_valid(data + bytes([0x80 | k] * n)) for n in (1, 2, 3) for k in range(0x40))


def _valid(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@given(st.lists(st.binary(max_size=8), max_size=40))
def test_bulk_classification_matches_per_token(chunks):
    tokens = [byte_level_encode(c) for c in chunks] + ["<|x|> y"]
    outside, bad = byte_level_faults(tokens)
    assert outside == [len(tokens) - 1]
    assert bad == [i for i, c in enumerate(chunks) if not _valid(c)]


def test_forall_fragment():
    d = decode_token("âĪ", Scheme.BYTE_LEVEL)
    assert d.data == b"\xe2\x88" and d.utf8 is Utf8Kind.INCOMPLETE and d.text is None
    msg = describe_fragment(d.data)
    assert "first 2 of 3 bytes" in msg and "lead byte E2" in msg and "missing 1" in msg and "∀" in msg
    assert visible_text(d.data) == "\\xE2\\x88"


def test_emoji_split_across_tokens():
    head = decode_token("ĠðŁĳ", Scheme.BYTE_LEVEL)
    tail = decode_token("ĭ", Scheme.BYTE_LEVEL)
    assert head.data == b" \xf0\x9f\x91" and head.utf8 is Utf8Kind.INCOMPLETE
    assert tail.data == b"\x8b" and tail.utf8 is Utf8Kind.CONTINUATION
    assert (head.data + tail.data).decode() == " 👋"
    assert short_fragment_kind(tail.data) == "continuation bytes only"
    assert visible_text(head.data) == "␣\\xF0\\x9F\\x91"


def test_tail_and_head_is_invalid():
    data = b"\x88\x80\xe4\xbd"  # end of ∀, start of 你
    assert classify(data) is Utf8Kind.INVALID
    msg = describe_fragment(data)
    assert "starts with 2 continuation bytes" in msg and "first 2 of 3 bytes" in msg


def test_never_valid_bytes():
    assert classify(b"\xc0\xaf") is Utf8Kind.INVALID
    assert "C0" in describe_fragment(b"\xc0\xaf")


def test_sentencepiece_and_literal():
    assert decode_token("▁the", Scheme.SENTENCEPIECE).data == b" the"
    d = decode_token("<0xE2>", Scheme.SENTENCEPIECE)
    assert d.data == b"\xe2" and d.kind.value == "byte-fallback" and d.utf8 is Utf8Kind.INCOMPLETE
    assert decode_token("<0x0A>", Scheme.SENTENCEPIECE).text == "\n"
    # the GPT-2 map is not applied to SentencePiece vocabularies
    assert decode_token("Ġ", Scheme.SENTENCEPIECE).text == "Ġ"
    assert decode_token("##ing", Scheme.WORDPIECE).text == "##ing"
    special = decode_token("<|endoftext|>", Scheme.BYTE_LEVEL, special=True)
    assert special.kind.value == "special" and special.text == "<|endoftext|>"
    # characters outside the byte alphabet: the token's own UTF-8 (HF ByteLevel decoder)
    ds = decode_token("<｜begin▁of▁sentence｜>", Scheme.BYTE_LEVEL)
    assert ds.text == "<｜begin▁of▁sentence｜>" and ds.kind.value == "literal"


def test_visible_text():
    assert visible_text(b" a\tb\n") == "␣a\\tb\\n"
    assert visible_text("x\u00a0y".encode()) == "x\\u00A0y"
    assert code_span("a`b") == "``a`b``"


def test_transport_loads_applies_the_hook_like_json():
    import json

    from tokenizer_lsp.transport import loads

    body = json.dumps({"jsonrpc": "2.0", "params": {"a": [{"b": 1}], "text": "é😀"}}, ensure_ascii=False).encode()
    seen = []
    assert loads(body, object_hook=lambda d: seen.append(sorted(d)) or d) == json.loads(body)
    assert seen == [["b"], ["a", "text"], ["jsonrpc", "params"]]
    # orjson refuses lone surrogates; the standard parser takes over
    assert loads(b'{"t": "\\ud800"}', object_hook=lambda d: d) == {"t": "\ud800"}
