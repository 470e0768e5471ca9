"""The text spaces of every env, and their shared-memory layout for async vector envs."""

from __future__ import annotations

import multiprocessing
import string
from typing import Any
from collections.abc import Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

#: The longest observation or action text a space holds.
MAX_TEXT = 1_000_000


class TextSpace(spaces.Text):
    """Any string up to ``max_length`` characters (gymnasium's Text limits the alphabet)."""

    def __init__(self, max_length: int = MAX_TEXT, seed: int | None = None):
        super().__init__(max_length=max_length, min_length=0, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"TextSpace(max_length={self.max_length})"


# Async vector envs pass observations through shared memory. gymnasium's Text stores indices
# into its (printable) character set, dropping every other character, and AsyncVectorEnv reads
# the buffer once, at construction, expecting a view that later writes show through; a tuple
# of str is a frozen copy. TextSpace stores each slot as [length, code point, ...] and reads
# it as a live view, decoded on access.
class SharedTextBatch(Sequence):
    """The texts of a vector env's shared-memory slots, decoded when read.

    ``copy.deepcopy`` (what AsyncVectorEnv returns by default) gives a plain tuple of str.
    """

    def __init__(self, slots: np.ndarray):
        self._slots = slots

    def __len__(self) -> int:
        return len(self._slots)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self)[index]
        row = self._slots[index]
        # 'surrogatepass' keeps lone surrogates, which are valid Python strings.
        return row[1:1 + row[0]].tobytes().decode("utf-32-le", "surrogatepass")

    def __eq__(self, other) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, SharedTextBatch) else other)

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __deepcopy__(self, memo) -> tuple[str, ...]:
        return tuple(self)

    def __reduce__(self):
        return tuple, (tuple(self),)


@create_shared_memory.register(TextSpace)
def _create_text_shared_memory(space: TextSpace, n: int = 1, ctx=multiprocessing):
    return ctx.Array(np.dtype(np.int32).char, n * (space.max_length + 1))


@write_to_shared_memory.register(TextSpace)
def _write_text_to_shared_memory(space: TextSpace, index: int, value: str, shared_memory) -> None:
    if len(value) > space.max_length:
        raise ValueError(f"observation of {len(value)} characters exceeds {space!r}")
    slot = space.max_length + 1
    destination = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)[index * slot:(index + 1) * slot]
    destination[0] = len(value)
    destination[1:1 + len(value)] = np.frombuffer(value.encode("utf-32-le", "surrogatepass"), dtype=np.int32)


@read_from_shared_memory.register(TextSpace)
def _read_text_from_shared_memory(space: TextSpace, shared_memory, n: int = 1) -> SharedTextBatch:
    return SharedTextBatch(np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape(n, space.max_length + 1))
