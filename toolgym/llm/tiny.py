"""A tiny random Llama-style chat model, built offline, for tests, benchmarks and smoke runs.

The weights are random, so the model emits gibberish; what it exercises is the whole path a
real model takes: tokenizer training, chat template, batched generation, token ids, logprobs.
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Sequence

# A ChatML-style template that understands ``tools`` and assistant ``tool_calls``, like Qwen's.
CHAT_TEMPLATE = (
    "{% if tools %}<|im_start|>system\n"
    "{% if messages[0]['role'] == 'system' %}{{ messages[0]['content'] }}\n\n{% endif %}"
    "# Tools\n{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}\n"
    "Call a tool as <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call><|im_end|>\n"
    "{% elif messages[0]['role'] == 'system' %}"
    "<|im_start|>system\n{{ messages[0]['content'] }}<|im_end|>\n{% endif %}"
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}"
    "{% elif message['role'] == 'assistant' and message.get('tool_calls') %}"
    "<|im_start|>assistant\n{% for call in message['tool_calls'] %}"
    "<tool_call>{\"name\": \"{{ call['function']['name'] }}\", \"arguments\": "
    "{{ call['function']['arguments'] }}}</tool_call>{% endfor %}<|im_end|>\n"
    "{% elif message['role'] == 'tool' %}"
    "<|im_start|>user\n<tool_response>{{ message['content'] }}</tool_response><|im_end|>\n"
    "{% else %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_CORPUS = [
    "You are a helpful assistant. Here is some user data:",
    "location: London\ntimestamp: 2023-09-12 10:00:00\nusername (if logged in): justinkool",
    '<tool_call>{"name": "AddAlarm", "arguments": {"time": "08:30:00"}}</tool_call>',
    '{"name": "SendEmail", "arguments": {"to": ["a@b.com"], "subject": "Meeting", "body": "hello"}}',
    "Thought: I should look up the weather.\nAction: GetWeather\nAction Input: {\"city\": \"Paris\"}",
    "Observation: {\"temperature\": 12}\nFinal Answer: It is 12 degrees.",
    "curl -X GET 'https://api.openweathermap.org/data/2.5/weather?q=London&appid={API_KEY}'",
    'API.set_location("Palo Alto")\nAPI.set_buy_or_rent("buy")\nAPI.search()',
    "Restaurants: r1 = findrestaurants(city='San Jose', cuisine='Italian')",
    "I have set an alarm for 8:30 tomorrow morning. Is there anything else?",
]


def build_tiny_model(path: str | Path, seed: int = 0, vocab_size: int = 1024, hidden_size: int = 32,
                     num_layers: int = 2, corpus: Sequence[str] = ()) -> Path:
    """Write a random Llama model and a byte-level BPE tokenizer with a chat template to ``path``.

    ``corpus``: extra texts for the tokenizer (e.g. an env's tool schemas, for shorter prompts).
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    path = Path(path)
    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(list(_CORPUS) * 20 + list(corpus), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                        bos_token=None, chat_template=CHAT_TEMPLATE)
    tokenizer.save_pretrained(path)

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=2 * hidden_size,
                         num_hidden_layers=num_layers, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=32768, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, bos_token_id=None, tie_word_embeddings=True,
                         initializer_range=0.3)
    LlamaForCausalLM(config).save_pretrained(path)
    return path
