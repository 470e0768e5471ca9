"""BFCL's prompt variations (the ``format_sensitivity`` category): system prompts and decoders.

Matched to ``bfcl-eval`` 2026.3.23: ``constants/default_prompts.py`` (the templates),
``model_handler/utils.py`` (``formulate_system_prompt``, ``format_function_doc``,
``parse_prompt_variation_params``, ``default_decode_ast_prompting``, ``ast_parse``),
``model_handler/parser/json_parser.py`` and ``xml_parser.py`` (the decoders), and
``utils.py`` (``get_all_format_sensitivity_configs``). A configuration is BFCL's query string
``ret_fmt=…&tool_call_tag=…&func_doc_fmt=…&prompt_fmt=…&style=…``.

BFCL finds the answer's parts with regular expressions (``<TOOLCALL>(.*?)</TOOLCALL>``,
``<functions>(.*?)</functions>``, ``\\[\\s*{.*?}\\s*(?:,\\s*{.*?}\\s*)*\\]``); toolgym finds the
same spans with linear scans (the last one matches exactly the shortest ``[ {…} ]`` from the
first ``[`` where one starts, which is what its lazy backtracking returns). BFCL reads the XML
with ElementTree; toolgym with :func:`read_xml`, a linear reader of the same elements,
attributes, text, comments and character references, without a DTD: a document with
``<!DOCTYPE`` (whose entities ElementTree would expand) fails to decode.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any

from toolgym.worlds.bfcl.calls import CallSyntaxError, parse_calls

RETURN_FORMATS = ("python", "json", "verbose_xml", "concise_xml")
FUNCTION_DOC_FORMATS = ("python", "xml", "json")
PROMPT_FORMATS = ("plaintext", "markdown")
PROMPT_STYLES = ("classic", "experimental")
DEFAULT_CONFIG = "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"

#: BFCL's 26 configurations, in its order: 4 return formats x tag or not x 3 doc formats, then
#: the default's markdown and experimental variants.
CONFIGS = tuple(f"ret_fmt={ret}&tool_call_tag={tag}&func_doc_fmt={doc}&prompt_fmt=plaintext&style=classic"
                for ret in RETURN_FORMATS for tag in ("True", "False") for doc in FUNCTION_DOC_FORMATS) + (
    "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=markdown&style=classic",
    "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=experimental",
)

OUTPUT_FORMATS = {
    "python": "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]",
    "json": '```json\n[{"function":"func_name1","parameters":{"param1":"value1","param2":"value2"...}},'
            '{"function":"func_name2","parameters":{"param":"value"}}]\n```',
    "verbose_xml": '<functions><function name="func_name1"><params><param name="param1" value="value1" '
                   'type="type1"/><param name="param2" value="value2" type="type2"/>...</params></function>'
                   '<function name="func_name2"><params><param name="param3" value="value3" type="type3"/>'
                   '</params></function></functions>',
    "concise_xml": '<functions><function name="func_name1"><param name="param1" type="type1">value1</param>'
                   '<param name="param2" type="type2">value2</param>...</function><function name="func_name2">'
                   '<param name="param3" type="type3">value</param></function></functions>',
}
_XML_TYPES = ("The type fields of the parameters in your function calls must be one of: string, integer, float, "
              "boolean, array, dict, or tuple.")
PARAM_TYPES = {"python": "", "json": "", "verbose_xml": _XML_TYPES, "concise_xml": _XML_TYPES}

STYLES = {
    "classic": {
        "persona": "You are an expert in composing functions.",
        "task": "You are given a question and a set of possible functions. Based on the question, you will need to "
                "make one or more function/tool calls to achieve the purpose. If none of the functions can be used, "
                "point it out. If the given question lacks the parameters required by the function, also point it "
                "out.",
        "no_tag": "You should only return the function calls in your response.\n\nIf you decide to invoke any of the "
                  "function(s), you MUST put it in the format of {output_format}. {param_types} You SHOULD NOT "
                  "include any other text in the response.",
        "tag": "You should only return the function calls in the <TOOLCALL> section. If you decide to invoke any of "
               "the function(s), you MUST put it in the format of <TOOLCALL>{output_format}</TOOLCALL>. "
               "{param_types} You SHOULD NOT include any other text in the response.",
        "multiturn": "At each turn, you should try your best to complete the tasks requested by the user within the "
                     "current turn. Continue to output functions to call until you have fulfilled the user's request "
                     "to the best of your ability. Once you have no more functions to call, the system will consider "
                     "the current turn complete and proceed to the next turn or task.",
        "tools": "Here is a list of functions in {format} format that you can invoke.\n{functions}\n",
    },
    "experimental": {
        "persona": "You are an expert in generating structured function calls.",
        "task": "You are given a user query and a set of available functions. Your task is to produce one or more "
                "function/tool calls to fulfill the user's request. If no suitable function exists, or required "
                "parameters are missing, clearly indicate this.",
        "no_tag": "Respond with only the function calls.\n\nYou MUST format it exactly as {output_format}. "
                  "{param_types} Do NOT include any other text.",
        "tag": "Return only the function calls enclosed in <TOOLCALL> tags.\n\nYou MUST format it exactly as "
               "<TOOLCALL>{output_format}</TOOLCALL>. {param_types} Do NOT include any other text.",
        "multiturn": "At every turn, aim to complete the user's tasks within that turn. Continue emitting function "
                     "calls until the request is satisfied to the best of your ability. Once no more calls are "
                     "needed, the system will proceed to the next turn.",
        "tools": "Below is a list of callable functions in the {format} style:\n{functions}\n",
    },
}


class FormatDecodeError(ValueError):
    """The answer does not decode in the configuration's return format (BFCL's decoder raises)."""


@dataclass(frozen=True)
class Variation:
    """One configuration, as ``parse_prompt_variation_params`` reads it."""

    return_format: str
    tool_call_tag: bool
    doc_format: str
    prompt_format: str
    style: str


def parse_config(config: str) -> Variation:
    """The five fields of ``config``; ``ValueError`` for anything BFCL's pattern does not match."""
    fields = config.split("&") if isinstance(config, str) else []
    allowed = (("ret_fmt", RETURN_FORMATS), ("tool_call_tag", ("True", "False")),
               ("func_doc_fmt", FUNCTION_DOC_FORMATS), ("prompt_fmt", PROMPT_FORMATS), ("style", PROMPT_STYLES))
    values = []
    if len(fields) == len(allowed):
        for field, (key, options) in zip(fields, allowed):
            name, _, value = field.partition("=")
            if name != key or value not in options:
                break
            values.append(value)
    if len(values) != len(allowed):
        raise ValueError(f"Invalid query format: {config!r}")
    return Variation(values[0], values[1] == "True", values[2], values[3], values[4])


# -- the system prompt ----------------------------------------------------------------------------
def system_prompt(config: str, functions: list[dict]) -> str:
    """BFCL's ``formulate_system_prompt``: ``functions`` (already hinted) in the configuration's layout."""
    variation = parse_config(config)
    style = STYLES[variation.style]
    call_format = style["tag" if variation.tool_call_tag else "no_tag"].format(
        output_format=OUTPUT_FORMATS[variation.return_format], param_types=PARAM_TYPES[variation.return_format])
    tools = style["tools"].format(format=variation.doc_format, functions=function_doc(functions, variation.doc_format))
    if variation.prompt_format == "markdown":
        return (f"{style['persona']}\n\n## Task\n{style['task']}\n\n## Tool Call Format\n{call_format}\n\n"
                f"## Multi-turn Behavior\n{style['multiturn']}\n\n## Available Tools\n{tools}")
    return f"{style['persona']}{style['task']}\n\n{call_format}\n\n{style['multiturn']}\n\n{tools}"


def function_doc(functions: list[dict], doc_format: str) -> str:
    """BFCL's ``format_function_doc``."""
    if doc_format == "xml":
        return "\n".join(_xml_doc(doc) for doc in functions)
    if doc_format == "python":
        return "\n\n".join(part for doc in functions for part in (_python_doc(doc), "\n"))
    return json.dumps(functions, indent=4)


def _xml_param(name: str, meta: dict, required: list | None, level: int) -> str:
    indent = " " * level * 2
    kind = meta.get("type", "string")
    description = meta.get("description", "")
    flag = "true" if required is None or name in required else "false"
    if "enum" in meta:
        description += f" Enum values: {meta['enum']}."
    if "items" in meta and "type" in meta["items"]:
        kind = f"{kind}[{meta['items']['type']}]"
    elif "additionalProperties" in meta:
        kind = f"{kind}[{meta['additionalProperties'].get('type', 'string')}]"
    attributes = [f'name="{name}", type="{kind}", required="{flag}"']
    if "default" in meta:
        attributes.append(f'default="{meta["default"]!r}"')
    # BFCL drops every comma of the attributes, those inside a default's repr too
    parts = [f"{indent}<param " + " ".join(attributes).replace(",", "") + ">\n",
             f"{indent}  <desc>{description}</desc>\n"]
    if "properties" in meta:
        parts.append(f"{indent}  <params>\n")
        parts.extend(_xml_param(child, child_meta, meta.get("required"), level + 2)
                     for child, child_meta in meta["properties"].items())
        parts.append(f"{indent}  </params>\n")
    parts.append(f"{indent}</param>\n")
    return "".join(parts)


def _xml_doc(doc: dict) -> str:
    schema = doc["parameters"]
    params = "".join(_xml_param(name, meta, schema.get("required"), 2)
                     for name, meta in schema.get("properties", {}).items())
    return (f'<function name="{doc["name"]}">\n  <desc>{doc.get("description", "")}</desc>\n  <params>\n'
            f"{params}  </params>\n</function>\n")


_PY_TYPES = {"string": "str", "number": "float", "integer": "int", "boolean": "bool"}


def _python_type(meta: dict) -> str:
    kind = meta.get("type", "string")
    if kind in _PY_TYPES:
        return _PY_TYPES[kind]
    if kind in ("array", "list", "tuple") and "items" in meta:
        return f"list[{_python_type(meta['items'])}]"
    if kind in ("object", "dict"):
        return f"dict[str, {_python_type(meta['additionalProperties'])}]" if "additionalProperties" in meta else "dict"
    return kind


def _python_param(name: str, meta: dict, depth: int) -> list[str]:
    description = meta.get("description", "")
    if "enum" in meta:
        description += f" Enum values: {meta['enum']}."
    default = f", default={meta['default']!r}" if "default" in meta else ""
    lines = [f"{' ' * (8 + 4 * depth)}{name} ({_python_type(meta)}{default}): {description}\n"]
    for child, child_meta in meta.get("properties", {}).items():
        lines.extend(_python_param(child, child_meta, depth + 1))
    return lines


def _python_doc(doc: dict) -> str:
    lines = [f"# Function: {doc['name']}\n", '    """\n', f"    {doc.get('description', '')}\n\n"]
    properties = doc.get("parameters", {}).get("properties", {})
    if properties:
        lines.append("    Args:\n")
        for name, meta in properties.items():
            lines.extend(_python_param(name, meta, 0))
    lines.append('    """\n')
    return "".join(lines)


# -- decoding an answer ---------------------------------------------------------------------------
def decode(text: str, config: str, compat: bool = False) -> list[dict]:
    """BFCL's ``default_decode_ast_prompting`` under ``config``: ``[{name: {param: value}}]``.

    A JSON answer is read from the span BFCL's pattern finds, which ends at the first ``}]``,
    so a list of objects among the arguments cuts it short (BFCL then reads no call).
    ``compat`` keeps that; otherwise the JSON list that starts there is read to its own end.

    Raises:
        FormatDecodeError: where BFCL's decoder raises (no tag, no ``<functions>``, bad syntax).
    """
    variation = parse_config(config)
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    if variation.tool_call_tag:
        start = text.find("<TOOLCALL>")
        end = text.find("</TOOLCALL>", start + len("<TOOLCALL>")) if start >= 0 else -1
        if end < 0:
            raise FormatDecodeError(f"No tool call tag found in input string: {text}")
        text = text[start + len("<TOOLCALL>"):end].strip()
    if variation.return_format == "python":
        try:
            return [{name: arguments} for name, arguments in parse_calls(text.strip().strip("'"))]
        except CallSyntaxError as exc:
            raise FormatDecodeError(str(exc)) from None
    if variation.return_format == "json":
        return _json_calls(text, compat)
    start = text.find("<functions>")
    end = text.find("</functions>", start) if start >= 0 else -1
    if end < 0:
        raise FormatDecodeError(f"No XML function call found in input string: {text}. Missing <functions> tag.")
    root = read_xml(text[start:end + len("</functions>")])
    return _verbose_xml_calls(root) if variation.return_format == "verbose_xml" else _concise_xml_calls(root)


def _json_span(text: str, compat: bool) -> str:
    """The text BFCL's ``\\[\\s*{.*?}\\s*(?:,\\s*{.*?}\\s*)*\\]`` finds, else all of ``text``: from
    the first ``[`` followed (after blanks) by ``{`` that has a later ``}`` (blanks) ``]``, to
    the first such ``]``."""
    closes = []  # (index of "}", index of "]") for each "}" followed by blanks and "]"
    last_brace = -1
    for i, ch in enumerate(text):
        if ch == "}":
            last_brace = i
        elif ch == "]" and last_brace >= 0:
            closes.append((last_brace, i))
            last_brace = -1
        elif not ch.isspace():
            last_brace = -1
    if not closes:
        return text
    i = 0
    while True:
        start = text.find("[", i)
        if start < 0:
            return text
        j = start + 1
        while j < len(text) and text[j].isspace():
            j += 1
        if j < len(text) and text[j] == "{":
            end = next((close for brace, close in closes if brace > j), None)
            if end is not None and not compat:
                try:
                    return text[start:json.JSONDecoder().raw_decode(text, start)[1]]
                except (ValueError, RecursionError):
                    pass  # not JSON from there: BFCL's span, which fails to load too
            if end is not None:
                return text[start:end + 1]
            return text  # no later start has a close after it either
        i = start + 1


def _json_calls(text: str, compat: bool) -> list[dict]:
    try:
        value = json.loads(_json_span(text, compat))
    except ValueError:
        return []  # BFCL: a JSONDecodeError is no call
    except RecursionError:
        raise FormatDecodeError("the JSON nests too deep") from None
    if not isinstance(value, (list, dict, str)):
        raise FormatDecodeError(f"'{type(value).__name__}' object is not iterable")
    calls = []
    for item in value:
        if isinstance(item, dict):
            if "function" not in item or "parameters" not in item:
                raise FormatDecodeError(f"no {'function' if 'function' not in item else 'parameters'} key")
            try:
                calls.append({item["function"]: item["parameters"]})
            except TypeError as exc:  # an unhashable function name
                raise FormatDecodeError(str(exc)) from None
    return calls


def _typed(raw: str, kind: str) -> Any:
    """BFCL's ``convert_value_by_type``."""
    try:
        if kind == "integer":
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind in ("array", "tuple", "object", "dict"):
            if len(raw) > 100_000:
                raise FormatDecodeError("a value over 100000 characters")
            return ast.literal_eval(raw)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise FormatDecodeError(f"{kind} value {raw[:80]!r}: {exc.__class__.__name__}") from None
    if kind == "boolean":
        return raw.lower() == "true"
    if kind == "null":
        return None
    return raw


def _named_functions(root: XmlElement):
    """The ``<function>`` children of ``root``, each with its ``name`` (else the answer is refused)."""
    for function in root.children_named("function"):
        if "name" not in function.attrib:
            raise FormatDecodeError("a <function> without a name")
        yield function


def _verbose_xml_calls(root: XmlElement) -> list[dict]:
    calls = []
    for function in _named_functions(root):
        container = next(iter(function.children_named("params")), None)
        params = (container if container is not None else function).children_named("param")
        calls.append({function.attrib["name"]: {p.attrib.get("name"): _typed(p.attrib.get("value", ""),
                                                                            p.attrib.get("type", "string"))
                                                for p in params}})
    return calls


def _concise_xml_calls(root: XmlElement) -> list[dict]:
    calls = []
    for function in _named_functions(root):
        arguments = {}
        for param in function.children_named("param"):
            if "name" not in param.attrib:
                raise FormatDecodeError("a <param> without a name")
            arguments[param.attrib["name"]] = _typed(param.text.strip(), param.attrib.get("type", "string"))
        calls.append({function.attrib["name"]: arguments})
    return calls


# -- a linear XML reader --------------------------------------------------------------------------
MAX_XML_DEPTH = 100
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


@dataclass
class XmlElement:
    tag: str
    attrib: dict
    text: str = ""  # the text before the first child, as ElementTree's ``.text``
    children: list | None = None

    def children_named(self, tag: str) -> list[XmlElement]:
        return [child for child in self.children or [] if child.tag == tag]


def _name_end(source: str, i: int) -> int:
    j = i
    while j < len(source) and not source[j].isspace() and source[j] not in "/>=<\"'&":
        j += 1
    if j == i:
        raise FormatDecodeError(f"XML: a name expected at {i}")
    return j


def _unescape(raw: str, at: int) -> str:
    """Character and predefined entity references replaced; ``&`` alone is an error."""
    out, i = [], 0
    while True:
        amp = raw.find("&", i)
        if amp < 0:
            out.append(raw[i:])
            return "".join(out)
        out.append(raw[i:amp])
        semi = raw.find(";", amp, amp + 12)
        if semi < 0:
            raise FormatDecodeError(f"XML: a bare '&' at {at + amp}")
        ref = raw[amp + 1:semi]
        try:
            if ref.startswith("#x"):
                out.append(chr(int(ref[2:], 16)))
            elif ref.startswith("#"):
                out.append(chr(int(ref[1:], 10)))
            else:
                out.append(_ENTITIES[ref])
        except (KeyError, ValueError, OverflowError):
            raise FormatDecodeError(f"XML: undefined entity &{ref[:10]}; at {at + amp}") from None
        i = semi + 1


def read_xml(source: str) -> XmlElement:
    """The one root element of ``source``, read in one pass (no DTD, no entities beyond XML's
    five; comments and processing instructions skipped); ``FormatDecodeError`` where
    ElementTree would raise a ``ParseError``."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    stack: list[XmlElement] = []
    root = None
    i = 0
    while i < len(source):
        lt = source.find("<", i)
        chunk = source[i:] if lt < 0 else source[i:lt]
        if chunk:
            if stack:
                parent = stack[-1]
                if not parent.children:
                    parent.text += _unescape(chunk, i)
                else:
                    _unescape(chunk, i)  # a child's tail: checked, not kept
            elif chunk.strip():
                raise FormatDecodeError(f"XML: text outside the root at {i}")
        if lt < 0:
            break
        if source.startswith("<!--", lt):
            end = source.find("-->", lt + 4)
            if end < 0:
                raise FormatDecodeError("XML: an unclosed comment")
            i = end + 3
        elif source.startswith("<![CDATA[", lt):
            end = source.find("]]>", lt + 9)
            if end < 0 or not stack:
                raise FormatDecodeError("XML: a CDATA section out of place")
            if not stack[-1].children:
                stack[-1].text += source[lt + 9:end]
            i = end + 3
        elif source.startswith("<?", lt):
            end = source.find("?>", lt + 2)
            if end < 0:
                raise FormatDecodeError("XML: an unclosed processing instruction")
            i = end + 2
        elif source.startswith("<!", lt):
            raise FormatDecodeError("XML: declarations (<!DOCTYPE ...>) are not read")
        elif source.startswith("</", lt):
            end = _name_end(source, lt + 2)
            close = end
            while close < len(source) and source[close].isspace():
                close += 1
            if not stack or source[lt + 2:end] != stack[-1].tag or not source.startswith(">", close):
                raise FormatDecodeError(f"XML: mismatched tag at {lt}")
            stack.pop()
            i = close + 1
        else:
            if root is not None and not stack:
                raise FormatDecodeError(f"XML: junk after document element at {lt}")
            end = _name_end(source, lt + 1)
            element = XmlElement(source[lt + 1:end], {})
            i = end
            while True:
                start = i
                while i < len(source) and source[i].isspace():
                    i += 1
                if source.startswith("/>", i) or source.startswith(">", i):
                    break
                if i == start or i >= len(source):
                    raise FormatDecodeError(f"XML: not well-formed at {i}")
                name_end = _name_end(source, i)
                name = source[i:name_end]
                j = name_end
                while j < len(source) and source[j].isspace():
                    j += 1
                if not source.startswith("=", j):
                    raise FormatDecodeError(f"XML: an attribute without a value at {j}")
                j += 1
                while j < len(source) and source[j].isspace():
                    j += 1
                quote = source[j] if j < len(source) else ""
                if quote not in ("'", '"'):
                    raise FormatDecodeError(f"XML: an unquoted attribute at {j}")
                value_end = source.find(quote, j + 1)
                if value_end < 0 or "<" in source[j + 1:value_end] or name in element.attrib:
                    raise FormatDecodeError(f"XML: a bad attribute at {i}")
                element.attrib[name] = _normalized(source[j + 1:value_end], j + 1)
                i = value_end + 1
            if stack:
                parent = stack[-1]
                parent.children = [*(parent.children or []), element]
            elif root is None:
                root = element
            if source.startswith("/>", i):
                i += 2
            else:
                if len(stack) >= MAX_XML_DEPTH:
                    raise FormatDecodeError(f"XML: nested deeper than {MAX_XML_DEPTH} elements")
                stack.append(element)
                i += 1
    if root is None or stack:
        raise FormatDecodeError("XML: no element found" if root is None else "XML: unclosed token")
    return root


def _normalized(raw: str, at: int) -> str:
    """An attribute value as XML normalizes it: literal tabs and newlines are spaces, those
    written as character references stay."""
    return _unescape(raw.replace("\t", " ").replace("\n", " "), at)


# -- writing an answer (the oracle) ---------------------------------------------------------------
def _xml_escape(text: str, attribute: bool) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if attribute:
        text = text.replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")
    return text.replace("\r", "&#13;")


def _xml_value(value: Any) -> tuple[str, str]:
    """(type, text) of a value as the XML formats write it, read back by ``convert_value_by_type``."""
    if isinstance(value, bool):
        return "boolean", str(value).lower()
    if isinstance(value, int):
        return "integer", str(value)
    if isinstance(value, float):
        return "float", repr(value)
    if value is None:
        return "null", ""
    if isinstance(value, (list, tuple)):
        return "array", repr(list(value))
    if isinstance(value, dict):
        return "dict", repr(value)
    return "string", str(value)


def write_answer(calls: list[tuple[str, dict]], config: str) -> str:
    """``calls`` as an answer in ``config``'s return format (the oracle's answer)."""
    variation = parse_config(config)
    if variation.return_format == "python":
        body = "[" + ", ".join(f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"
                               for name, args in calls) + "]"
    elif variation.return_format == "json":
        body = "```json\n" + json.dumps([{"function": name, "parameters": args} for name, args in calls]) + "\n```"
    else:
        functions = []
        for name, args in calls:
            params = []
            for key, value in args.items():
                kind, text = _xml_value(value)
                if variation.return_format == "verbose_xml":
                    params.append(f'<param name="{_xml_escape(key, True)}" value="{_xml_escape(text, True)}" '
                                  f'type="{kind}"/>')
                else:
                    params.append(f'<param name="{_xml_escape(key, True)}" type="{kind}">'
                                  f'{_xml_escape(text, False)}</param>')
            inner = f"<params>{''.join(params)}</params>" if variation.return_format == "verbose_xml" \
                else "".join(params)
            functions.append(f'<function name="{_xml_escape(name, True)}">{inner}</function>')
        body = f"<functions>{''.join(functions)}</functions>"
    return f"<TOOLCALL>{body}</TOOLCALL>" if variation.tool_call_tag else body
