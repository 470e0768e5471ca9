#!/usr/bin/env bash
# The whole recipe of docs/training.md: demonstrations of BFCL's generated training tasks, SFT,
# GRPO on the env's reward, then the base, SFT and GRPO models on the official (held-out) BFCL
# categories and on TauBench-v0's and Tau2-v0's official test splits with the scripted user,
# compared with McNemar's exact test.
#
#   examples/recipe_bfcl.sh [--model smollm2-135m-instruct] [--device cpu|cuda] [--runs runs/recipe]
#                           [--demos 2000] [--sft-steps N] [--grpo-steps N] [--eval-items N|all]
#                           [--long-items N|all] [--jobs N] [--threads N]
#
# The defaults depend on --device. On a CPU (the default) the recipe fits in 90 minutes on two
# cores (67 minutes when timed, see docs/training.md): 64 SFT steps, 4 GRPO steps, the first 50
# items of each single-turn BFCL category, two evaluations at a time, and no long evaluation (an
# episode of multi_turn_base or a τ test split costs a 135M model minutes of CPU: add them with
# --long-items N). With --device cuda: one pass over the demonstrations, 50 GRPO steps, every
# item of everything. A flag given overrides its default. On a CPU --threads defaults to every core (nproc), shared among the --jobs evaluations.
# --eval-items N: the first N items of every single-turn evaluation (all: every item);
# --long-items N: of multi_turn_base and the τ test splits (0: skip them); --jobs N: evaluations run
# N at a time (each with --threads/N threads; on a CPU, one per core is faster than one process
# with every core).
# Every step is resumable: it is skipped when its output exists (the SFT and GRPO models), and an
# evaluation continues its results file (eval --resume); each evaluation's log is
# RUNS/eval/NAME.log. The official data comes from $TOOLGYM_DATA (see docs/evaluation.md). Run it
# from the repository root.
set -euo pipefail

MODEL=smollm2-135m-instruct
DEVICE=cpu
RUNS=runs/recipe
DEMOS=2000
SFT_STEPS=            # empty: the device's default (-1: one pass over the demonstrations)
GRPO_STEPS=
EVAL_ITEMS=           # empty: the device's default; all: every item of each official category
LONG_ITEMS=
JOBS=
THREADS=
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL=$2; shift 2 ;;
    --device) DEVICE=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --demos) DEMOS=$2; shift 2 ;;
    --sft-steps) SFT_STEPS=$2; shift 2 ;;
    --grpo-steps) GRPO_STEPS=$2; shift 2 ;;
    --eval-items) EVAL_ITEMS=$2; shift 2 ;;
    --long-items) LONG_ITEMS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    *) echo "unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
case "$DEVICE" in
  cpu) : "${SFT_STEPS:=64}" "${GRPO_STEPS:=4}" "${EVAL_ITEMS:=50}" "${LONG_ITEMS:=0}" "${JOBS:=2}" \
         "${THREADS:=$(nproc)}" ;;
  cuda) : "${SFT_STEPS:=-1}" "${GRPO_STEPS:=50}" "${EVAL_ITEMS:=all}" "${LONG_ITEMS:=all}" "${JOBS:=1}" ;;
  *) echo "--device is cpu or cuda, not $DEVICE" >&2; exit 2 ;;
esac
[ "$EVAL_ITEMS" = all ] && EVAL_ITEMS=
[ "$LONG_ITEMS" = all ] && LONG_ITEMS=

PYTHON=${PYTHON:-python}
TRAIN_CATEGORIES='category=["simple_python","multiple","parallel","parallel_multiple","irrelevance"]'
BFCL_CATEGORIES="simple_python multiple parallel parallel_multiple irrelevance live_simple multi_turn_base"
DTYPE=bfloat16        # LoRA adapters over bfloat16 weights: AVX-512 BF16 / AMX CPUs and GPUs
threads=(); [ -n "$THREADS" ] && threads=(--threads "$THREADS")
eval_threads=(); [ -n "$THREADS" ] && eval_threads=(--threads $(( THREADS / JOBS > 0 ? THREADS / JOBS : 1 )))
device=(); [ "$DEVICE" = cuda ] && device=(--backend-kwarg device=cuda)
mkdir -p "$RUNS/eval"

echo "== SFT on toolgym's demonstrations (skipped when $RUNS/sft/model exists)"
"$PYTHON" examples/sft_demos.py --env BFCL-v0 --env-kwarg split=train --env-kwarg "$TRAIN_CATEGORIES" \
  --episodes "$DEMOS" --model "$MODEL" --output-dir "$RUNS/sft" --lora-rank 16 --dtype "$DTYPE" \
  --learning-rate 1e-3 --max-steps "$SFT_STEPS" --save-steps 4 --device "$DEVICE" "${threads[@]}"

echo "== GRPO on the env's reward (skipped when $RUNS/grpo/model exists)"
# tasks_per_category=80: the 400 training tasks are 80 of each category (the first 400 of the
# default 1000 per category would all be simple_python)
"$PYTHON" examples/grpo_toolgym.py --env BFCL-v0 --env-kwarg split=train --env-kwarg "$TRAIN_CATEGORIES" \
  --env-kwarg tasks_per_category=80 --prompt-format chat --model "$RUNS/sft/model" --dtype "$DTYPE" --lora-rank 16 --lora-layers 8 --tasks 400 \
  --max-steps "$GRPO_STEPS" --prompts-per-step 2 --num-generations 8 --max-completion-length 128 \
  --learning-rate 5e-4 --temperature 0.8 --device "$DEVICE" --output-dir "$RUNS/grpo" \
  --save-model "$RUNS/grpo/model" "${threads[@]}"

evaluate() {  # NAME AGENT ENV ITEMS FLAGS...: one results file, continued where it stopped
  local out="$RUNS/eval/$1.jsonl" agent=$2 env=$3 items=$4; shift 4
  local again=(); [ -s "$out" ] && again=(--resume)
  local episodes=(); [ -n "$items" ] && episodes=(--episodes "$items")
  echo "== $(basename "$out" .jsonl) (log: $RUNS/eval/$(basename "$out" .jsonl).log)"
  "$PYTHON" -m toolgym.eval.cli eval "$env" --tasks official "$@" --agent "$agent" --prompt-format chat \
    --tool-choice auto --no-progress --out "$out" "${again[@]}" "${episodes[@]}" "${eval_threads[@]}" \
    "${device[@]}" > "$RUNS/eval/$(basename "$out" .jsonl).log" 2>&1
}

evaluations() {  # one line per evaluation: NAME AGENT ENV ITEMS FLAGS...
  local name agent category domain items
  for name in base sft grpo; do
    case $name in base) agent="hf:$MODEL" ;; *) agent="hf:$RUNS/$name/model" ;; esac
    for category in $BFCL_CATEGORIES; do
      case $category in multi_turn_*) items=$LONG_ITEMS ;; *) items=$EVAL_ITEMS ;; esac
      [ "$items" = 0 ] && continue
      echo "$name-bfcl-$category $agent BFCL-v0 ${items:--} --env-kwarg category=$category"
    done
    [ "$LONG_ITEMS" = 0 ] && continue
    for domain in airline retail; do
      echo "$name-taubench-$domain $agent TauBench-v0 ${LONG_ITEMS:--} --split test --env-kwarg domain=$domain"
      echo "$name-tau2-$domain $agent Tau2-v0 ${LONG_ITEMS:--} --split test --env-kwarg domain=$domain"
    done
  done
}

lane() {  # LANE: the evaluations whose place in the list is LANE modulo JOBS, one after another
  local index=0 failed=0 name agent env items flags
  while read -r name agent env items flags; do
    if [ $(( index++ % JOBS )) -eq "$1" ]; then
      [ "$items" = - ] && items=
      # shellcheck disable=SC2086  # flags are words without spaces
      evaluate "$name" "$agent" "$env" "$items" $flags || { echo "!! $name failed (see its log)" >&2; failed=1; }
    fi
  done < <(evaluations)
  return $failed
}

pids=()
for (( job = 0; job < JOBS; job++ )); do lane "$job" & pids+=($!); done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

echo "== against the base model (McNemar's exact test per category)"
for name in sft grpo; do
  for run in "$RUNS"/eval/base-*.jsonl; do
    other="$RUNS/eval/$name-${run#"$RUNS"/eval/base-}"
    [ -s "$other" ] && "$PYTHON" -m toolgym.eval.cli compare "$run" "$other"
  done
done
exit $status
