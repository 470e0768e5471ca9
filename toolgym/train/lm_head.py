"""Log-probabilities of completion tokens only, on every device, in TRL's fused LM head.

TRL's ``GRPOTrainer`` scores a batch through a fused, chunked LM head
(``trl.trainer.utils.add_fused_lm_head``). On devices with Triton (CUDA, XPU) it projects only
the positions that have a label, the completion tokens; elsewhere it projects every position,
prompt and padding included, so that the tile shapes stay fixed for compilers that would
recompile on each new shape (Neuron). A CPU compiles nothing, and there the full projection
is close to half a step: a HomeSearch episode of SmolLM2-135M is ~730 prompt tokens and ~150
completion tokens, and the 49,152-word head over all of them took 30 s of a 71 s GRPO step
on 2 cores (float32 tiles, forward and backward); with the completion tokens only, the same
steps took 43 s on average, with the same losses.

:func:`score_completion_tokens_only` makes that choice take the Triton devices' branch on a
CPU too. The projection itself is unchanged (TRL's torch tiles on a CPU, its Triton kernel
elsewhere); only which rows go into it changes, so the log-probabilities of the completion
tokens are the same and the prompt's are never computed.
"""

from __future__ import annotations

import warnings


def score_completion_tokens_only() -> bool:
    """Make TRL's fused LM head project only the labelled positions on CPUs too.

    Returns whether the installed TRL has the branch this changes; without it (a TRL that
    moved or dropped its fused head) nothing is changed and a warning says so.
    """
    from trl.trainer import utils

    use_triton = getattr(utils, "_use_triton", None)
    if use_triton is None or not callable(getattr(utils, "add_fused_lm_head", None)):
        warnings.warn("this TRL has no fused LM head with a per-device row choice (trl.trainer.utils._use_triton); "
                      "its GRPO log-probabilities are computed as it computes them", stacklevel=2)
        return False
    if getattr(use_triton, "completion_rows_on_cpu", False):
        return True

    def compact_rows(device) -> bool:
        # Read by add_fused_lm_head only, to choose the rows it projects: labelled ones or all.
        return device.type == "cpu" or use_triton(device)

    compact_rows.completion_rows_on_cpu = True
    utils._use_triton = compact_rows
    return True
