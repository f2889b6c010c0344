from hypothesis import given
from hypothesis import strategies as st
from tokenizer_lsp.core.decoding import (
    BYTE_TO_CHAR,
    CHAR_TO_BYTE,
    Scheme,
    byte_level_decode,
    byte_level_encode,
    classify,
    decode_token,
)
from tokenizer_lsp.core.decoding.bulk import byte_level_faults
from tokenizer_lsp.core.decoding.display import code_span, visible_text
from tokenizer_lsp.core.decoding.utf8 import Utf8Kind, describe_fragment, short_fragment_kind


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


# arbitrary bytes, and slices of real UTF-8 text (which cut characters the way tokens do)
_BYTES = st.one_of(
    st.binary(max_size=16),
    st.tuples(st.text(max_size=8), st.integers(0, 40), st.integers(0, 40)).map(
        lambda t: t[0].encode("utf-8")[t[1] : t[1] + t[2]]
    ),
)


@given(_BYTES)
def test_classification_agrees_with_python_both_ways(data):
    """Python's decoder is the reference: valid iff it decodes; incomplete iff its first
    complaint is the end of the data (all before is fine); continuation iff only 80-BF."""
    kind = classify(data)
    try:
        data.decode("utf-8")
        reason = None
    except UnicodeDecodeError as err:
        reason = err.reason
    assert (kind is Utf8Kind.VALID) == (reason is None)
    assert (kind is Utf8Kind.CONTINUATION) == (bool(data) and all(0x80 <= b <= 0xBF for b in data))
    if kind is not Utf8Kind.CONTINUATION:
        assert (kind is Utf8Kind.INCOMPLETE) == (reason == "unexpected end of data")


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
    assert decode_token("##ing", Scheme.WORDPIECE).text == "##ing"  # no prefix declared: literal
    d = decode_token("##ing", Scheme.WORDPIECE, prefix="##")
    assert d.text == "ing" and d.continues == "##"
    assert decode_token("##", Scheme.WORDPIECE, prefix="##").text == "##"  # the prefix alone is a token
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

    from tokenizer_lsp.runtime.stdio import loads

    body = json.dumps({"jsonrpc": "2.0", "params": {"a": [{"b": 1}], "text": "é😀"}}, ensure_ascii=False).encode()
    seen = []
    assert loads(body, object_hook=lambda d: seen.append(sorted(d)) or d) == json.loads(body)
    assert seen == [["b"], ["a", "text"], ["jsonrpc", "params"]]
    # orjson refuses lone surrogates; the standard parser takes over
    assert loads(b'{"t": "\\ud800"}', object_hook=lambda d: d) == {"t": "\ud800"}


def test_display_keeps_bytes_and_characters_apart():
    from tokenizer_lsp.core.decoding.display import escaped, visible_text

    # \x.. only for bytes that are not UTF-8; characters (even U+0000) are \u....
    assert visible_text(b"\x00a\xe2") == "\\u0000a\\xE2"
    # a backslash in the text is doubled, so literal `\xE2` text is not a byte
    assert visible_text(b"\\xE2") == "\\\\xE2"
    assert visible_text("a\u2028b\u0085".encode()) == "a\\u2028b\\u0085"
    assert escaped("x\ny\tz\u2029") == "x\\ny\\tz\\u2029" and escaped("plain") == "plain"


def test_hover_and_hints_stay_small_on_a_huge_token():
    import base64

    from tokenizer_lsp.core.index.build import build_index
    from tokenizer_lsp.core.navigation.pieces import piece_at
    from tokenizer_lsp.lsp.render.hints import hints_in
    from tokenizer_lsp.lsp.render.hover import hover_markdown

    big = base64.b64encode("é".encode() * 500_000).decode()
    data = f"IQ== 0\n{big} 1\n".encode()
    idx = build_index(data, "/x/a.tiktoken")
    idx.prepare_lookups()
    h = hover_markdown(idx, piece_at(idx, 20))
    assert len(h) < 3000 and "(1000000 bytes)" in h and "more bytes" in h
    hints = hints_in(idx, 0, len(data))
    assert len(hints) == 2 and all(len(x.label) <= 40 and len(x.tooltip) < 300 for x in hints)


def test_whitespace_hints_look_at_characters_not_bytes():
    import json

    from tokenizer_lsp.core.index.build import build_index
    from tokenizer_lsp.lsp.render.hints import hints_in

    # "Ãł" is C3 A0, the letter à; "Âł" is C2 A0, a no-break space
    data = json.dumps({"Ãł": 0, "ÂłX": 1, "Ġa": 2, "ab": 3}, ensure_ascii=False).encode()
    idx = build_index(data, "/x/vocab.json")
    idx.prepare_lookups()
    assert [h.label for h in hints_in(idx, 0, len(data), "whitespace")] == ["\\u00A0X", "␣a"]
    assert [h.label for h in hints_in(idx, 0, len(data), "all")] == ["à", "\\u00A0X", "␣a"]


def test_fragment_explanations_name_the_shape():
    from tokenizer_lsp.core.decoding.utf8 import describe_fragment

    assert "middle or end" in describe_fragment(b"\x80") and "last byte" not in describe_fragment(b"\x80")
    assert "surrogate" in describe_fragment(b"\xed\xa0\x80")
    assert "overlong" in describe_fragment(b"\xe0\x80\x80") and "overlong" in describe_fragment(b"\xc0\x80")
    # the example character of a range is a visible one (U+2000, first for E2, is a blank)
    assert "e.g. ‐ U+2010" in describe_fragment(b"\xe2") and "e.g. ∀ U+2200" in describe_fragment(b"\xe2\x88")


@given(st.binary(max_size=24))
def test_sentencepiece_and_raw_schemes_invert(data):
    """Bytes written the SentencePiece way (<0xNN> for each byte) or as tiktoken's base64
    decode back to exactly those bytes."""
    import base64

    assert b"".join(decode_token(f"<0x{b:02X}>", Scheme.SENTENCEPIECE).data for b in data) == data
    assert decode_token(base64.b64encode(data).decode(), Scheme.RAW_BYTES).data == data


@given(st.text(max_size=12))
def test_sentencepiece_text_pieces_decode_spaces(text):
    stored = text.replace(" ", "\u2581")
    if len(stored) == 6 and stored.startswith("<0x"):
        return  # that is a byte-fallback token
    assert decode_token(stored, Scheme.SENTENCEPIECE).data == text.replace("\u2581", " ").encode(
        "utf-8", "surrogatepass"
    )
