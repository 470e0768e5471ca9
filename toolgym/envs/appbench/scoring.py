"""AppBench metrics: the paper's definitions (``scoring="paper"``) and a faithful
re-implementation of the released evaluation script (``scoring="paper_compat"``).

Both return per-episode counts, so a table micro-averages F1 over a category exactly as the
official script does (it sums hits, predictions and ground truths over the samples).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from toolgym.envs.common.metrics import multiset_hits
from toolgym.worlds.appbench.plan import Call, Ref, Value

TIME_KEYS = {"date", "time", "start_date", "end_date", "pickup_time", "check_in_date", "check_out_date",
             "appointment_date", "appointment_time", "show_date", "show_time", "date_of_journey",
             "journey_start_time", "departure_date", "departure_time", "return_date", "visit_date", "year"}
SPACE_KEYS = {"city", "location", "where_to", "from", "to", "from_city", "to_city", "origin_airport",
              "destination_airport", "destination", "pickup_location", "area", "address", "street_address",
              "venue_address", "origin"}


def _norm(value: Value) -> tuple[str, str]:
    if isinstance(value, Ref):
        return ("ref", value.field.strip().lower())
    return ("lit", str(value).strip().strip("'\"").strip().lower())


def _canonical(call: Call) -> tuple:
    return (call.app.strip().lower(), call.api.strip().lower(),
            frozenset((k.strip().lower(), _norm(v)) for k, v in call.arguments.items()))


def dependency_structure(calls: list[Call]) -> dict:
    """Section 5.1's scales of a plan's call graph: an edge joins a call to the nearest earlier
    call that returns a field it references. Sequential scale = size of the largest connected
    component; parallel scale = number of components."""
    parent = list(range(len(calls)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, call in enumerate(calls):
        for value in call.arguments.values():
            if isinstance(value, Ref):
                j = next((j for j in range(i - 1, -1, -1) if value.field in calls[j].returns), None)
                if j is not None:
                    parent[root(i)] = root(j)
    sizes = sorted(Counter(root(i) for i in range(len(calls))).values(), reverse=True)
    return {"component_sizes": sizes, "sequential_scale": sizes[0] if sizes else 0, "parallel_scale": len(sizes)}


def _error_analysis(pred: list[Call], truth: list[Call]) -> dict:
    """Table 4: key and value errors of the arguments of correctly chosen APIs, split into
    independent (user-given) and dependent (referenced) arguments, and how many of the
    errors concern time or space values."""
    out = Counter(args_indep=0, args_dep=0, key_err_indep=0, key_err_dep=0, value_err_indep=0, value_err_dep=0,
                  err_time=0, err_space=0)
    unused = list(range(len(pred)))
    for gt in truth:
        candidates = [i for i in unused if pred[i].api.strip().lower() == gt.api.lower()]
        if not candidates:
            continue
        gt_args = {k.lower(): v for k, v in gt.arguments.items()}

        def agreement(i: int) -> int:
            mine = {k.strip().lower(): _norm(v) for k, v in pred[i].arguments.items()}
            return sum(mine.get(k) == _norm(v) for k, v in gt_args.items())

        best = max(candidates, key=agreement)
        unused.remove(best)
        mine = {k.strip().lower(): v for k, v in pred[best].arguments.items()}
        for key, value in gt_args.items():
            kind = "dep" if isinstance(value, Ref) else "indep"
            out[f"args_{kind}"] += 1
            if key not in mine:
                error = f"key_err_{kind}"
            elif _norm(mine[key]) != _norm(value):
                error = f"value_err_{kind}"
            else:
                continue
            out[error] += 1
            out["err_time"] += key in TIME_KEYS
            out["err_space"] += key in SPACE_KEYS
        for key, value in mine.items():
            if key not in gt_args:  # an argument the ground truth does not have is a key error too
                out[f"key_err_{'dep' if isinstance(value, Ref) else 'indep'}"] += 1
                out["err_time"] += key in TIME_KEYS
                out["err_space"] += key in SPACE_KEYS
    return dict(out)


def score_paper(pred: list[Call], parse_errors: list[str], truth: list[Call], truth_apps: list[str]) -> dict:
    """The paper's definitions: F1 counts are multiset intersections; Succ needs every call
    matched one to one (same app, API, argument keys, values equal up to case and quotes,
    references naming the same field), no extra call and a fully readable plan."""
    pred_apps = [c.app.strip().lower() for c in pred if c.app.strip()]
    gt_apps = [a.lower() for a in truth_apps]
    pred_apis = [c.api.strip().lower() for c in pred]
    gt_apis = [c.api.lower() for c in truth]
    em_app = Counter(pred_apps) == Counter(gt_apps)
    em_api = Counter(pred_apis) == Counter(gt_apis)
    calls_match = Counter(map(_canonical, pred)) == Counter(map(_canonical, truth))
    succ = float(em_app and em_api and calls_match and not parse_errors)
    return {
        "app_hits": multiset_hits(pred_apps, gt_apps), "app_pred": len(pred_apps), "app_gt": len(gt_apps),
        "api_hits": multiset_hits(pred_apis, gt_apis), "api_pred": len(pred_apis), "api_gt": len(gt_apis),
        "em_app": float(em_app), "em_api": float(em_api),
        "succ": succ, "success": succ,
        "parse_errors": len(parse_errors), **_error_analysis(pred, truth),
    }


# -- the released evaluation script, defects included -----------------------------------------
# Values its authors map before comparing (sic: one target keeps a stray quote).
_CORRECTIONS = {"la": "los angeles", "lax": "los angeles", "ciudad de mexico": "mexico city'", "nyc": "new york",
                "sd": "san diego", "sfo": "san francisco", "chi-town": "chicago"}
# The script's pattern is r"(\w[\w\d_]*)\s*=\s*(\w[\w\d_]*)\(([^)]*)\)" (quadratic when searched
# over a long word). Its leftmost match always starts where a word starts, so trying only
# there (the lookbehind) finds the same match, and it ends at a ")", so no search past the
# last ")" can succeed: together, linear time.
_SCRIPT_CALL = re.compile(r"(?<!\w)(\w+)\s*=\s*(\w+)\(([^)]*)\)")
_SCRIPT_LINE = re.compile(r"(\w+):\s*\n*(\[.*\])")


def script_split_plan(text: str) -> tuple[list[str], list[str]]:
    """The script's reading of a model's answer into app names and API call strings: only
    ``App: [...]`` lines count, brackets are deleted."""
    apps, apis = [], []
    for line in text.split("\n"):
        app = api = None
        found = _SCRIPT_LINE.match(line)
        if found:
            app, api = found.group(1), found.group(2).replace("[", "").replace("]", "").strip()
        elif ":" in line:
            if "[" not in line or "]" not in line:
                continue
            head, tail = line.split(":", 1)
            app, api = head.strip(), tail.strip().replace("[", "").replace("]", "").strip()
        if app:
            apps.append(app)
        if api is not None:
            apis.append(api)
    return apps, apis


def script_read_call(line: str) -> tuple[str, dict[str, str]] | None:
    """The script's call reader: needs ``ret = api(...)``; arguments split on ", " (a piece
    without "=" blanks the previous key's value; a piece with two "=" is dropped); an API
    name with "_" keeps only its second part."""
    found = _SCRIPT_CALL.search(line, 0, line.rfind(")") + 1)
    if found is None:
        return None
    name = found.group(2).lower()
    if "_" in name:
        name = name.split("_")[1]
    args: dict[str, str] = {}
    last_key = None
    for piece in found.group(3).split(", "):
        if "=" in piece:
            parts = piece.split("=")
            if len(parts) != 2:
                continue
            last_key, value = parts
            args[_script_key(last_key)] = value.strip()
        elif last_key is not None:
            args[_script_key(last_key)] = ""
    return name, args


def _script_key(key: str) -> str:
    key = key.strip().lower()
    return key if key.startswith("#") else "#" + key


def _script_match(preds: list[str], labels: list[str]) -> tuple[int, int]:
    """(exact match, hits) as the script counts them: hits is 1 when any prediction is among
    the labels, else 0 (its loop stops at the first hit); nothing predicted scores (0, 0)."""
    if not preds:
        return 0, 0
    preds, labels = [p.lower() for p in preds], [x.lower() for x in labels]
    em = int(sorted(preds) == sorted(labels))
    return em, int(bool(set(preds) & set(labels)))


def _script_same(v1: str, v2: str) -> bool:
    a, b = v1.lower().strip("'"), v2.lower().strip("'")
    return a == b or b in a or a in b


def score_paper_compat(plan_text: str, truth_lines: list[str], truth_apps: list[str], user_values: dict[str, Any]) -> dict:
    """One sample as the released script scores it (get_appbench_analysis)."""
    user_aware = {"#" + k: str(v) for k, v in user_values.items()}
    apps, apis = script_split_plan(plan_text)
    app_em, app_hit = _script_match(apps, truth_apps)
    read = [script_read_call(api) for api in apis]
    pred_names = [r[0] if r else "" for r in read]
    truth_read = [script_read_call(line) for line in truth_lines]
    truth_names = [r[0] for r in truth_read if r]
    api_em, api_hit = _script_match(pred_names, truth_names)
    pred_args = {r[0]: r[1] for r in (script_read_call(api.replace("\\", "")) for api in apis) if r}
    truth_args = {r[0]: r[1] for r in truth_read if r}
    past: list[tuple[str, str]] = []
    apis_right = 0
    for name, gt_args in truth_args.items():
        if name not in pred_args:
            continue
        mine, hits = pred_args[name], 0
        for key, gt_value in gt_args.items():
            if key not in mine:
                continue
            value = (mine[key] or "").lower()
            if value.strip("'") in _CORRECTIONS:
                value = "'" + _CORRECTIONS[value.strip("'")] + "'"
            earlier = next((v for k, v in past if k == key), None)
            if _script_same(gt_value.lower(), value) or (
                    key in user_aware and _script_same(user_aware[key].lower(), value)):
                past.append((key, value))
                hits += 1
            elif earlier is not None and _script_same(earlier, value):
                hits += 1
        apis_right += hits == len(gt_args)
    succ = app_em == 1 and api_em == 1 and apis_right == len(truth_args)
    return {"app_hits": app_hit, "app_pred": len(apps), "app_gt": len(truth_apps),
            "api_hits": api_hit, "api_pred": len(pred_names), "api_gt": len(truth_names),
            "em_app": float(app_em), "em_api": float(api_em), "succ": float(succ), "success": float(succ)}
