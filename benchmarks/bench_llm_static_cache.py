"""Per-token decoding time of the transformers backend: plain (dynamic cache) vs static cache
(+ torch.compile on CUDA), greedy, batch 1, and a check that both give the same tokens.

By default a random Llama of about 270M parameters (hidden 1024, 16 layers, vocabulary 32k) is
built offline; ``--model`` takes a real one. On a GPU::

    python benchmarks/bench_llm_static_cache.py --device cuda --dtype float32
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from toolgym.llm import ChatRequest, SamplingParams, TransformersBackend
from toolgym.llm.tiny import build_tiny_model

REQUEST = ChatRequest(messages=[{"role": "user", "content": "Set an alarm for 8:30 tomorrow and tell me the weather."}])


def ms_per_token(backend: TransformersBackend, sampling: SamplingParams, repeats: int) -> tuple[float, list[int]]:
    """Median milliseconds per generated token over ``repeats`` calls (after two warm-up calls)."""
    for _ in range(2):  # the first calls of a static cache compile (CUDA) and allocate
        tokens = backend.generate([REQUEST], sampling)[0].completion_token_ids
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        completion = backend.generate([REQUEST], sampling)[0]
        if backend.device.startswith("cuda"):
            backend.torch.cuda.synchronize()
        times.append((time.perf_counter() - start) / max(1, completion.completion_tokens))
    return statistics.median(times) * 1e3, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", help="a model id or path (default: a random ~270M Llama)")
    parser.add_argument("--hidden-size", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=16)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    model = args.model or str(build_tiny_model(tempfile.mkdtemp(), vocab_size=32000, hidden_size=args.hidden_size,
                                               num_layers=args.layers))
    sampling = SamplingParams(max_new_tokens=args.max_new_tokens)
    rows = []
    for label, options in (("plain (dynamic cache)", {"static_cache": False}),
                           ("static cache", {"static_cache": True, "compile": False}),
                           ("static cache + compile", {"static_cache": True, "compile": True})):
        backend = TransformersBackend(model, device=args.device, dtype=args.dtype, **options)
        if options.get("compile") and not backend.device.startswith("cuda"):
            continue  # transformers compiles the static-cache forward on accelerators only
        rows.append((label, *ms_per_token(backend, sampling, args.repeats)))
    print(f"{'decoding':<24} {'ms/token':>9}  same tokens as plain")
    for label, ms, tokens in rows:
        print(f"{label:<24} {ms:>9.2f}  {tokens == rows[0][2]}")


if __name__ == "__main__":
    main()
