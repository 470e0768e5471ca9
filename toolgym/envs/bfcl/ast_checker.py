"""BFCL's single-turn AST checker: a model's calls against every acceptable value.

Written from the behaviour of BFCL v4's ``eval_checker/ast_eval`` (function name, required
and optional parameters, types with Java/JavaScript source conversion, string values compared
after BFCL's normalisation, order-free matching of parallel calls). Verdicts carry BFCL's own
``error_type`` (``simple_function_checker:wrong_func_name``, ``type_error:simple``,
``value_error:string`` ...); :func:`check_name` shortens it to the failing check.

Two scorings (:class:`toolgym.envs.bfcl.env.BFCLEnv` lists the differences):

- ``paper_compat`` converts Java values as the released converter does: string items of a Java
  array keep their quotes, ``ArrayList`` items typed ``any`` stay strings, and a call whose
  expected function is absent from the docs is a failure (the released checker crashes).
- ``paper`` strips the quotes of Java string items and reads ``any`` items as Java literals,
  so every released ground truth passes.
"""

from __future__ import annotations

import functools
import re
from typing import Any

PYTHON_TYPES = {"string": str, "integer": int, "float": float, "boolean": bool, "array": list,
                "tuple": list, "dict": dict, "any": str}
JAVA_TYPES = {"byte": int, "short": int, "integer": int, "float": float, "double": float, "long": int,
              "boolean": bool, "char": str, "Array": list, "ArrayList": list, "Set": set, "HashMap": dict,
              "Hashtable": dict, "Queue": list, "Stack": list, "String": str, "any": str}
JS_TYPES = {"String": str, "integer": int, "float": float, "Bigint": int, "Boolean": bool, "dict": dict,
            "array": list, "any": str}
NESTED_SOURCE_TYPES = ("Array", "ArrayList", "array")
#: The declared types whose items' type the checker reads (Python's, Java's and JavaScript's).
NESTED_TYPES = ("array", "tuple", "Array", "ArrayList")
#: The longest Java or JavaScript value converted: BFCL's patterns (kept for agreement, except the
#: JavaScript 2-D array and Java HashMap ones, exponential and quartic, which are read by linear
#: code here) take time up to cubic in the text on adversarial input (0.4 s for 1,000 characters of
#: an ArrayList body); a longer value stays text (the longest official one is a few hundred characters). Java and JavaScript appear only in single-call categories and only
#: parameters of the doc are converted, so an answer converts a handful of values at most.
MAX_SOURCE_VALUE = 1_000

_INT = re.compile(r"-?\d+")
_JAVA_FLOAT = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]")
_JAVA_DOUBLE = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?")
_JAVA_LONG = re.compile(r"-?\d+[lL]")
_JS_FLOAT = re.compile(r"-?\d+(\.\d+)?")
_STANDARDIZE = re.compile(r"[ ,./\-_*^]")


def verdict(valid: bool, error_type: str = "", error: str = "") -> dict:
    return {"valid": valid, "error_type": error_type, "error": error}


def check_name(error_type: str) -> str:
    """The failing check of a BFCL ``error_type``: ``type_error`` for ``type_error:simple``,
    ``wrong_func_name`` for ``simple_function_checker:wrong_func_name``."""
    head, _, tail = error_type.partition(":")
    return head if head in ("type_error", "value_error") else (tail or head)


# -- Java and JavaScript values: source text to Python values -------------------------------------
def java_value(text: str, java_type: str, items: str | None = None, compat: bool = False) -> Any:
    """A Java argument's source text as the value BFCL compares (a string when it does not read)."""
    if java_type in ("byte", "short", "integer"):
        return int(text) if _INT.fullmatch(text) else text
    if java_type == "float":
        return float(text[:-1]) if _JAVA_FLOAT.fullmatch(text) else text
    if java_type == "double":
        return float(text) if _JAVA_DOUBLE.fullmatch(text) else text
    if java_type == "long":
        return int(text[:-1]) if _JAVA_LONG.fullmatch(text) else text
    if java_type == "boolean":
        return text == "true" if text in ("true", "false") else text
    if java_type == "ArrayList":
        return _java_arraylist(text, items, compat)
    if java_type == "Array":
        match = re.search(r"new\s+\w+\[\]\s*\{(.*?)\}", text)
        if not match:
            return text
        parts = [p.strip() for p in match.group(1).split(",") if p.strip()]
        if items is None:
            return [_java_literal(p) for p in parts]
        if not compat and items == "String":
            return [p[1:-1] if len(p) >= 2 and p[0] == p[-1] == '"' else p for p in parts]
        return [java_value(p, items, compat=compat) for p in parts]
    if java_type == "HashMap":
        body = _java_hashmap_body(text)
        if body is not None:
            return {k: _java_literal(v.strip()) for k, v in re.findall(r"put\(\"(.*?)\",\s*(.*?)\)", body)}
        return {} if re.search(r"new\s+HashMap<.*?>\s*\(\)", text) else text
    return text  # char, String, any and the types the released converter leaves unread


_NEW_HASHMAP = re.compile(r"new\s+HashMap<")
_HASHMAP_OPENING = re.compile(r"\s*\(\)\s*\{")


def _java_hashmap_body(text: str) -> str | None:
    """What BFCL's ``new\\s+HashMap<.*?>\\s*\\(\\)\\s*\\{\\s*\\{?\\s*(.*?)\\s*\\}?\\s*\\}`` (searched,
    ``re.S``) captures, or None where it finds nothing.

    Its five spaces-or-not quantifiers in a row take time of the fourth power of the text on a
    run of spaces (a 1,000-character value ran for minutes); this reads what backtracking finds.
    Only the first ``new HashMap<`` can match (a later one's candidates are among the first's);
    its type ends at the first ``>`` followed by ``() {`` with a ``}`` after it; the body starts
    after the spaces, an optional ``{`` and more spaces, and ends at the first ``}``, its trailing
    spaces left out (the lazy group stops as soon as only spaces stand before a ``}``).
    """
    start = _NEW_HASHMAP.search(text)
    if start is None:
        return None
    last_close = text.rfind("}")
    close_type = text.find(">", start.end())
    while close_type != -1:
        opening = _HASHMAP_OPENING.match(text, close_type + 1)
        if opening is not None and last_close >= opening.end():
            body = len(text) - len(text[opening.end():].lstrip())
            if text.startswith("{", body):
                body = len(text) - len(text[body + 1:].lstrip())
            return text[body:text.index("}", body)].rstrip()
        close_type = text.find(">", close_type + 1)
    return None


def _java_arraylist(text: str, items: str | None, compat: bool) -> Any:
    match = re.search(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)", text)
    if match:
        parts = [p.strip() for p in match.group(1).split(",")]
    else:
        match = re.search(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", text, re.S)
        if not match:
            return [] if re.search(r"new\s+ArrayList<\w*>\(\)", text) else text
        parts = [p.strip() for p in re.findall(r"add\((.+?)\)", match.group(1))]
    values = []
    for part in parts:
        if items in ("char", "String"):
            values.append(part[1:-1])
        elif items == "any" and not compat:
            values.append(_java_literal(part))
        elif items:
            values.append(java_value(part, items, compat=compat))
        else:
            values.append(_java_literal(part))
    return values


def _java_literal(text: str) -> Any:
    """A Java literal whose type is not given."""
    if text in ("true", "false"):
        return text == "true"
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    if _JAVA_LONG.fullmatch(text):
        return int(text[:-1])
    if _JAVA_FLOAT.fullmatch(text):
        return float(text[:-1])
    return _number_or_text(text)


def _number_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def js_value(text: str, js_type: str, items: str | None = None) -> Any:
    """A JavaScript argument's source text as the value BFCL compares."""
    if js_type == "String":
        quoted = len(text) >= 2 and text[0] == text[-1] and text[0] in "'\""
        return text[1:-1] if quoted else text
    if js_type == "integer":
        return int(text) if _INT.fullmatch(text) else text
    if js_type == "float":
        return float(text) if _JS_FLOAT.fullmatch(text) else text
    if js_type == "Bigint":
        return int(text[:-1]) if re.fullmatch(r"-?\d+n", text) else text
    if js_type == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if js_type == "array":
        return _js_array(text.strip(), items)
    if js_type == "dict":
        return _js_dict(text.strip())
    return text


def _js_literal(text: str) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return _number_or_text(text)


def _js_array(code: str, items: str | None) -> Any:
    nested = _js_2d_array_end(code)
    if nested is not None:
        rows = []
        for index, inner in enumerate(re.findall(r"\[(.*?)\]", code[:nested])):
            inner = inner.strip()
            if index == 0 and inner.startswith("["):
                inner = inner[1:]
            rows.append([_js_literal(e) for e in inner.split(",")])
        return rows
    flat = re.match(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)", code)
    if not flat:
        return code
    body = (flat.group(1) if flat.group(1) is not None else flat.group(2) or "").strip()
    parts = [p.strip() for p in body.split(",")] if body else []
    if not items:
        return [_js_literal(p) for p in parts]
    try:
        return [js_value(p, items, "String" if p.startswith(("'", '"')) else None) for p in parts]
    except (ValueError, IndexError):
        return code


_NEW_ARRAY = re.compile(r"new\s+Array\(\s*\[")


def _js_2d_array_end(code: str) -> int | None:
    """Where BFCL's 2-D array pattern's match at the start of ``code`` ends, or None.

    BFCL matches ``\\[\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\]`` or the same inside ``new Array(...)``;
    Python's backtracking takes exponential time on ``[[1],[1],...`` with that nested quantifier.
    This finds the very match backtracking finds (the first in its order of trying: each lazy
    ``.*?`` at its nearest ``]`` that lets the rest match, the greedy group repeated as often as
    it can) in one pass from the right end to the left: ``row_end[p]`` is where the match ends
    when a row's text starts at ``p``, ``after_row[p]`` where it ends when a row's ``]`` was
    passed just before ``p``, and ``text[p]`` the first character at or after ``p`` that is not
    a space (``\\s*`` before a bracket or comma takes every space).
    """
    size = len(code)
    if code.startswith("["):
        start, close = size - len(code[1:].lstrip()), "]"
        if not code.startswith("[", start):
            return None
    else:
        opening = _NEW_ARRAY.match(code)
        if opening is None:
            return None
        start, close = opening.end() - 1, ")"
    text = [size] * (size + 2)
    row_end: list[int | None] = [None] * (size + 2)
    after_row: list[int | None] = [None] * (size + 2)
    for position in range(size - 1, start, -1):
        text[position] = text[position + 1] if code[position].isspace() else position
        gap = text[position]
        ending = None
        if gap < size and code[gap] == ",":  # another row first: the group is greedy
            row = text[gap + 1]
            if row < size and code[row] == "[":
                ending = row_end[row + 1]
        if ending is None and gap < size and code[gap] == close:
            ending = gap + 1
        after_row[position] = ending
        if code[position] == "\n":  # ``.`` never takes a newline
            row_end[position] = None
        elif code[position] == "]" and after_row[position + 1] is not None:
            row_end[position] = after_row[position + 1]
        else:
            row_end[position] = row_end[position + 1]
    return row_end[start + 1]


def _js_dict(code: str) -> Any:
    if code == "{}":
        return {}
    match = re.match(r"\{(.*?)\}", code)
    if not match:
        return code
    result = {}
    for key, value in re.findall(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)", match.group(1)):
        key, value = key.strip().strip("'\""), value.strip()
        if value.startswith("[") and value.endswith("]"):
            result[key] = _js_array(value, None)
        elif value.startswith("{") and value.endswith("}"):
            result[key] = _js_dict(value)
        else:
            result[key] = _js_literal(value.strip("'\""))
    return result


# -- value comparison --------------------------------------------------------------------------
def standardize(text: str) -> str:
    """BFCL's string normalisation: no spaces or ``,./-_*^``, lower case, ' as "."""
    if len(text) <= _KEPT_STANDARD_CHARS:
        return _standardized(text)
    return _STANDARDIZE.sub("", text).lower().replace("'", '"')


#: Short strings' standard forms are kept (a possible answer's are asked for at every check of it):
#: 16,384 of at most 256 characters, a few MB at most.
_KEPT_STANDARD_CHARS = 256


@functools.lru_cache(maxsize=16_384)
def _standardized(text: str) -> str:
    return _STANDARDIZE.sub("", text).lower().replace("'", '"')


def _norm(value: Any) -> Any:
    return standardize(value) if isinstance(value, str) else value


def _first_type(possible: list) -> type | None:
    for answer in possible:
        if answer != "":
            return type(answer)
    return None


def _type_check(param: str, value: Any, possible: list, expected: type, nested: type | None) -> tuple[dict | None, bool]:
    """BFCL's type check: (the failing verdict, None when the type passes; whether the value stands
    for a variable). No verdict is made for a pass: the checker asks this for every argument."""
    answer_type = _first_type(possible)
    is_variable = answer_type is not None and answer_type != expected
    if type(value) == expected:
        if nested is None:
            return None, is_variable
        for answer in possible:
            if type(answer) != list or all(_type_check(param, item, answer, nested, None)[0] is None for item in value):
                return None, is_variable
        failure = verdict(False, "type_error:nested", f"Nested type checking failed for parameter {param!r}.")
    else:
        failure = None
    if answer_type is not None and type(value) == answer_type:
        return None, True
    return failure or verdict(False, "type_error:simple",
                              f"Incorrect type for parameter {param!r}. Expected {expected.__name__}, "
                              f"got {type(value).__name__}: {value!r}."), False


def _dict_check(param: str, value: dict, possible: list, compat: bool = False) -> dict:
    result = verdict(False, "dict_checker:unclear", f"No acceptable value for {param!r}.")
    for answer in possible:
        if answer == "":
            continue
        for key, item in value.items():
            if key not in answer:
                result = verdict(False, "value_error:dict_key", f"Unexpected dict key parameter: {key!r}.")
                break
            options = answer[key] if isinstance(answer[key], list) or compat else [answer[key]]
            if _norm(item) not in [_norm(a) for a in options]:
                result = verdict(False, "value_error:dict_value", f"Invalid value for {key!r}: {item!r}.")
                break
        else:
            missing = [key for key, options in answer.items() if key not in value and "" not in options]
            if not missing:
                return verdict(True)
            result = verdict(False, "value_error:dict_key", f"Missing dict key parameter: {missing[0]!r}.")
    return result


def _list_dict_check(param: str, value: list, possible: list, compat: bool = False) -> dict:
    result = verdict(False, "list_dict_checker:unclear", f"No acceptable value for {param!r}.")
    for answer in possible:
        if len(value) != len(answer):
            result = verdict(False, "value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        for item, options in zip(value, answer):
            result = _dict_check(param, item, [options], compat)
            if not result["valid"]:
                break
        else:
            return verdict(True)
    return result


# -- one call, several calls --------------------------------------------------------------------
def check_call(doc: dict, call: dict, answer: dict, language: str, compat: bool = False) -> dict:
    """One model call ``{name: {param: value}}`` against one possible answer ``{name: {param: [values]}}``."""
    name, possible = next(iter(answer.items()))
    if name not in call:
        return verdict(False, "simple_function_checker:wrong_func_name",
                       f"Function name {name!r} not found in model output.")
    arguments = call[name]
    parameters = doc["parameters"]
    properties = parameters.get("properties", {})
    for param in parameters.get("required", []):
        # paper: the possible answer is the authority; a required parameter it lets be left out is not asked for
        if param not in arguments and (compat or any(o != "" for o in possible.get(param, []))):
            return verdict(False, "simple_function_checker:missing_required", f"Missing required parameter: {param!r}.")
    for param, value in arguments.items():
        if param in possible and param not in properties and not compat:
            # paper: a parameter the possible answer lists but the doc lacks is judged by value alone
            if value not in possible[param] and _norm(value) not in [_norm(a) for a in possible[param]]:
                return verdict(False, "value_error:others", f"Invalid value for parameter {param!r}: {value!r}.")
            continue
        if param not in properties or param not in possible:
            return verdict(False, "simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}.")
        spec, options = properties[param], possible[param]
        declared = spec.get("type")
        # the items' type only where a nested type is read
        items = (spec.get("items") or {}).get("type") if declared in NESTED_TYPES else None
        nested = None
        if language in ("java", "javascript"):
            table = JAVA_TYPES if language == "java" else JS_TYPES
            if declared not in table:
                return verdict(False, f"type_error:{'java' if language == 'java' else 'js'}",
                               f"Unsupported type {declared!r} for parameter {param!r}.")
            expected = table[declared]
            if type(value) != str:
                return verdict(False, f"type_error:{'java' if language == 'java' else 'js'}",
                               f"Incorrect type for parameter {param!r}. Expected type String, "
                               f"got {type(value).__name__}: {value!r}.")
            if declared in NESTED_SOURCE_TYPES:
                nested = table.get(items)
            if len(value) > MAX_SOURCE_VALUE:
                return verdict(False, "value_error:others", f"The value of {param!r} is longer than "
                               f"{MAX_SOURCE_VALUE} characters; it is not read.")
            value = (java_value(value, declared, items if declared in NESTED_SOURCE_TYPES else None, compat)
                     if language == "java" else js_value(value, declared, items if declared in NESTED_SOURCE_TYPES else None))
        else:
            expected = PYTHON_TYPES.get(declared, str)
            if declared in ("array", "tuple"):
                nested = PYTHON_TYPES.get(items, str)
        if declared == "tuple" and type(value) == tuple:
            value = list(value)
        if language == "python" and declared == "float" and type(value) == int:
            value = float(value)
        failure, is_variable = _type_check(param, value, options, expected, nested)
        if failure is not None:
            return failure
        if not is_variable:
            if expected == dict:
                result = _dict_check(param, value, options, compat)
            elif expected == list and nested == dict:
                result = _list_dict_check(param, value, options, compat)
            elif expected == str:
                # an option equal to the value has its standard form (the usual answer: no list of forms)
                if value in options or standardize(value) in [standardize(a) for a in options if isinstance(a, str)]:
                    continue
                return verdict(False, "value_error:string", f"Invalid value for parameter {param!r}: {value!r}.")
            elif expected == list:
                if value in options or \
                        [_norm(v) for v in value] in [[_norm(v) for v in a] for a in options if isinstance(a, list)]:
                    continue
                return verdict(False, "value_error:list/tuple", f"Invalid value for parameter {param!r}: {value!r}.")
            else:
                result = None
            if result is not None:
                if not result["valid"]:
                    return result
                continue
        if value not in options:
            return verdict(False, "value_error:others", f"Invalid value for parameter {param!r}: {value!r}.")
    for param, options in possible.items():
        # paper: a parameter with no acceptable value at all ([]) can only be left out
        if param not in arguments and "" not in options and (compat or options):
            return verdict(False, "simple_function_checker:missing_optional",
                           f"Optional parameter {param!r} not provided and not marked as optional.")
    return verdict(True)


def _doc(docs: list[dict], name: str) -> dict | None:
    return next((d for d in docs if d.get("name") == name), None)


def ast_check(docs: list[dict], calls: list[dict], answers: list[dict], category: str, language: str,
              compat: bool = False) -> dict:
    """BFCL's verdict on ``calls`` (``[{name: {param: value}}]``) for a single-turn category."""
    if "parallel" in category:
        if len(calls) != len(answers):
            return verdict(False, "parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
        matched: set[int] = set()
        for answer in answers:
            doc = _doc(docs, next(iter(answer)))
            if doc is None:
                return verdict(False, "parallel_function_checker_no_order:no_doc", "The expected function has no doc.")
            reasons = []
            for index, call in enumerate(calls):
                if index in matched:
                    continue
                result = check_call(doc, call, answer, language, compat)
                if result["valid"]:
                    matched.add(index)
                    break
                reasons.append(result["error"])
            else:
                return verdict(False, "parallel_function_checker_no_order:cannot_find_match",
                               f"No call matches {next(iter(answer))!r}: " + " | ".join(reasons))
        return verdict(True)
    if "multiple" in category:
        if len(calls) != len(answers):
            return verdict(False, "multiple_function_checker:wrong_count", "Wrong number of functions.")
    elif len(calls) != 1:
        return verdict(False, "simple_function_checker:wrong_count", "Wrong number of functions.")
    doc = _doc(docs, next(iter(answers[0]))) if "multiple" in category else docs[0]
    if doc is None:
        return verdict(False, "multiple_function_checker:no_doc", "The expected function has no doc.")
    return check_call(doc, calls[0], answers[0], language, compat)
