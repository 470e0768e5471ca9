"""Digests of the prompting first-turn messages BFCL's handlers send for every format_sensitivity
entry (bfcl-eval 2026.3.23): the entry as its loader prepares it (``load_dataset_entry``), through
``system_prompt_pre_processing_chat_model`` with the configuration in its id.

Run in a throwaway venv with bfcl-eval==2026.3.23 installed (its qwen_agent import stubbed):
    python tests/data/bfcl_protocol/make_format_digests.py tests/data/bfcl_protocol/format_digests.json
"""
import copy, hashlib, json, sys
from collections import defaultdict

from bfcl_eval.model_handler.utils import system_prompt_pre_processing_chat_model
from bfcl_eval.utils import load_dataset_entry


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


by_config = defaultdict(dict)
for entry in load_dataset_entry("format_sensitivity"):
    config = entry["id"].split(":")[1]
    prompting = system_prompt_pre_processing_chat_model(copy.deepcopy(entry["question"][0]), entry["function"],
                                                        entry["id"])
    by_config[config][entry["id"]] = digest(prompting)
out = {config: {"items": len(items), "digest": digest(sorted(items.items()))} for config, items in by_config.items()}
note = ("sha256 of json.dumps(prompting first-turn messages, sort_keys=True) per format_sensitivity entry as "
        "bfcl-eval 2026.3.23 derives them, and of the sorted (id, digest) pairs per configuration; made by "
        "make_format_digests.py")
json.dump({"note": note, "configs": out}, open(sys.argv[1], "w"), indent=1)
print(len(out), "configs", sum(v["items"] for v in out.values()), "entries")
