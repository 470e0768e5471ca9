"""The transformers backend's static-cache decoding gives the plain path's greedy tokens (issue 9).

On CPU, with the tiny random model in float32; the compiled variant and its speed are measured
on a GPU by ``benchmarks/bench_llm_static_cache.py``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from toolgym.llm import ChatRequest, SamplingParams, TransformersBackend  # noqa: E402
from toolgym.llm.tiny import build_tiny_model  # noqa: E402

REQUESTS = [
    ChatRequest(messages=[{"role": "user", "content": "Set an alarm for 8:30 tomorrow."}]),
    ChatRequest(messages=[{"role": "system", "content": "You are a helpful assistant. Here is some user data:"},
                          {"role": "user", "content": "What is the weather in London? And in Paris, today?"}]),
    ChatRequest(messages=[{"role": "user", "content": "Hi"}]),
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=5)


def test_static_cache_gives_the_plain_paths_greedy_tokens(tiny_model):
    sampling = SamplingParams(max_new_tokens=16)
    plain = TransformersBackend(str(tiny_model), device="cpu", dtype="float32", prefill="batch")
    static = TransformersBackend(str(tiny_model), device="cpu", dtype="float32", static_cache=True, compile=False)
    assert not plain.static_cache and static.static_cache  # off by default on CPU
    for batch in (REQUESTS, REQUESTS[:1]):
        want, got = plain.generate(batch, sampling), static.generate(batch, sampling)
        assert [c.completion_token_ids for c in got] == [c.completion_token_ids for c in want]
        assert [c.text for c in got] == [c.text for c in want]
        assert all(len(c.completion_token_ids) > 0 for c in got)
        for g, w in zip(got, want):
            assert g.logprobs == pytest.approx(w.logprobs, abs=1e-4)


def test_compile_needs_a_static_cache(tiny_model):
    with pytest.raises(ValueError, match="static_cache"):
        TransformersBackend(str(tiny_model), device="cpu", static_cache=False, compile=True)
