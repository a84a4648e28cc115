"""Text helpers (hindsight.rules.text): keyword text for BM25, content hashes, token estimates."""

from hindsight.rules.text import content_hash, estimate_tokens, keyword_text


def test_keyword_text_segments_chinese_and_keeps_latin():
    out = keyword_text("我喜欢用polars处理数据")
    words = out.split()
    assert "polars" in words
    assert "喜欢" in words and "数据" in words
    assert keyword_text("ERR_SSL_PROTOCOL_ERROR in pip").split() == [
        "ERR_SSL_PROTOCOL_ERROR",
        "in",
        "pip",
        "errsslprotocolerror",
    ]
    assert keyword_text("plain words") == "plain words"


def test_content_hash_folds_whitespace_only():
    assert content_hash("a  b\n") == content_hash("a b")
    assert content_hash("a b") != content_hash("A b")


def test_token_estimate_counts_cjk_per_character():
    assert estimate_tokens("") == 0
    assert estimate_tokens("数据库") == 3
    assert 2 <= estimate_tokens("hello world") <= 4
