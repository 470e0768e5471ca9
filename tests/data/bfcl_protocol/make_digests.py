"""Digests of what BFCL's OpenAI handlers derive for every official entry (bfcl-eval 2026.3.23):
the chat-completions tools, the Responses tools and the prompting first-turn messages.

Run in a throwaway venv with bfcl-eval==2026.3.23 installed:
    python tests/data/bfcl_protocol/make_digests.py tests/data/bfcl_protocol/digests.json
"""
import copy, hashlib, json, sys

from bfcl_eval.constants.enums import ModelStyle
from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
from bfcl_eval.model_handler.utils import convert_to_tool, system_prompt_pre_processing_chat_model
from bfcl_eval.utils import load_dataset_entry

CATEGORIES = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
              "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "irrelevance",
              "live_irrelevance", "live_relevance", "multi_turn_base", "multi_turn_miss_func",
              "multi_turn_miss_param", "multi_turn_long_context")


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


out = {}
for category in CATEGORIES:
    items = {}
    for entry in load_dataset_entry(category):
        chat = convert_to_tool(entry["function"], GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS)
        responses = convert_to_tool(entry["function"], GORILLA_TO_OPENAPI, ModelStyle.OPENAI_RESPONSES)
        prompting = system_prompt_pre_processing_chat_model(copy.deepcopy(entry["question"][0]), entry["function"],
                                                            entry["id"])
        items[entry["id"]] = digest([chat, responses, prompting])
    out[category] = {"items": len(items), "digest": digest(sorted(items.items()))}
    print(category, out[category]["items"])
note = ("sha256 of json.dumps([chat tools, Responses tools, prompting first-turn messages], sort_keys=True) per "
        "entry as bfcl-eval 2026.3.23 derives them, and of the sorted (id, digest) pairs per category; made by "
        "make_digests.py")
json.dump({"note": note, "categories": out}, open(sys.argv[1], "w"), indent=1)
