"""Built-in tables, tasks and demonstrations of GoogleSheets-v0 (generated, seeded).

Six spreadsheets hold one generated table each (products and prices, grades, sales by
region and month, inventory, employees, expenses). Each task template turns a table into a
request and its ground-truth programs, covering every category of the paper: cell updates,
sorting, inserting and deleting rows and columns, merging, filtering, formatting, pivot
tables and pandas-based edits. toolgym adds five categories over what the simulation offers
beyond the paper's operations: ``drive`` (copy the spreadsheet, as a template, and edit the copy),
``dates`` (date serial numbers and DATE number formats), ``named_ranges``, ``hidden`` (hidden
rows and columns) and ``data_validation`` (dropdowns and number rules). Where an operation can be
written in two ways (plain gspread calls, gspread-dataframe, or a raw ``batch_update`` request),
the task keeps the programs of each (the env checks they leave equal sheets). Expected sheets are never written here: the env computes them by running the
programs.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass
from collections.abc import Callable


NUMERIC_TABLES = ("products", "grades", "sales", "inventory", "employees", "expenses")


@dataclass(frozen=True)
class SheetTask:
    """A request on one spreadsheet, its category and its ground-truth programs."""

    spreadsheet: str
    category: str
    query: str
    programs: tuple[str, ...]


def _unique_numbers(rng: random.Random, count: int, low: float, high: float, digits: int) -> list:
    seen: list = []
    while len(seen) < count:
        value = round(rng.uniform(low, high), digits) if digits else rng.randint(int(low), int(high))
        if value not in seen:
            seen.append(value)
    return seen


def make_tables(seed: int) -> dict[str, tuple[str, list[list]]]:
    """Spreadsheet id -> (title, rows of its first sheet, headers first)."""
    rng = random.Random(f"sheets-tables-{seed}")
    tables: dict[str, tuple[str, list[list]]] = {}
    items = [("Laptop", "Electronics"), ("Mouse", "Electronics"), ("Desk", "Furniture"), ("Chair", "Furniture"),
             ("Monitor", "Electronics"), ("Lamp", "Furniture"), ("Notebook", "Stationery"), ("Pen", "Stationery"),
             ("Keyboard", "Electronics"), ("Stapler", "Stationery")]
    prices = _unique_numbers(rng, 10, 2, 900, 2)
    quantities = _unique_numbers(rng, 10, 1, 80, 0)
    tables["products"] = ("Products", [["Product", "Category", "Price", "Quantity"]] +
                          [[n, c, p, q] for (n, c), p, q in zip(items, prices, quantities)])
    students = ["Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Isla", "Jack"]
    columns = [_unique_numbers(rng, 10, 50, 100, 0) for _ in range(2)]
    classes = ["9A", "9B", "9A", "9C", "9B", "9A", "9C", "9B", "9A", "9C"]
    tables["grades"] = ("Grades", [["Student", "Class", "Math", "Science"]] +
                        [[s, c, *scores] for s, c, *scores in zip(students, classes, *columns)])
    sales = _unique_numbers(rng, 12, 1000, 9000, 0)
    units = _unique_numbers(rng, 12, 10, 300, 0)
    reps = ["Adams", "Baker", "Clark", "Davis", "Evans", "Foster", "Garcia", "Hughes", "Irwin", "Jones", "King",
            "Lopez"]
    rng.shuffle(reps)
    rows = [[rep, ["North", "South", "East", "West"][i % 4], sales[i], units[i]] for i, rep in enumerate(reps)]
    tables["sales"] = ("Sales", [["Rep", "Region", "Sales", "Units"]] + rows)
    stock = _unique_numbers(rng, 10, 0, 500, 0)
    levels = _unique_numbers(rng, 10, 20, 150, 0)
    names = ["Bolts", "Nuts", "Screws", "Washers", "Hinges", "Nails", "Brackets", "Rivets", "Springs", "Clamps"]
    houses = ["Austin", "Denver", "Austin", "Boston", "Denver", "Boston", "Austin", "Denver", "Boston", "Austin"]
    tables["inventory"] = ("Inventory", [["Item", "Warehouse", "Stock", "Reorder Level"]] +
                           [list(r) for r in zip(names, houses, stock, levels)])
    people = ["Olivia", "Liam", "Noah", "Ava", "Mia", "Lucas", "Sofia", "Ethan", "Zoe", "Mason"]
    departments = ["Sales", "IT", "HR", "IT", "Sales", "Finance", "HR", "IT", "Finance", "Sales"]
    salaries = _unique_numbers(rng, 10, 40000, 120000, 0)
    years = _unique_numbers(rng, 10, 1, 30, 0)
    tables["employees"] = ("Employees", [["Name", "Department", "Salary", "Years"]] +
                           [list(r) for r in zip(people, departments, salaries, years)])
    kinds = ["Travel", "Meals", "Office", "Software", "Travel", "Meals", "Office", "Software", "Travel", "Meals"]
    amounts = _unique_numbers(rng, 10, 20, 2000, 2)
    items_count = _unique_numbers(rng, 10, 1, 40, 0)
    refs = [f"EX-{100 + i}" for i in range(10)]
    tables["expenses"] = ("Expenses", [["Reference", "Category", "Amount", "Items"]] +
                          [list(r) for r in zip(refs, kinds, amounts, items_count)])
    return tables


# -- templates -------------------------------------------------------------------------------------
# Each gets (key, headers, rows, rng) and returns (category, query, programs). Column 0 is a
# unique label, column 1 a category, columns 2 and 3 numbers (every table is laid out so).
Template = Callable[[str, list, list, random.Random], tuple[str, str, tuple[str, ...]]]
READ = "df = get_as_dataframe(worksheet)\n"
WRITE = "set_with_dataframe(worksheet, df)"
REWRITE = "worksheet.clear()\nset_with_dataframe(worksheet, df)"


def _last(rows: list) -> int:
    return len(rows) + 1  # the sheet row of the last data row (headers in row 1)


def update_cell(key, headers, rows, rng):
    i = rng.randrange(len(rows))
    value = rows[i][2] + rng.choice([5, 10, 25])
    label = rows[i][0]
    return ("cell_update", f"Change the {headers[2]} of {label} to {value}.", (
        f"worksheet.update_acell('C{i + 2}', {value})",
        f"cell = worksheet.find('{label}')\nworksheet.update_cell(cell.row, 3, {value})",
        READ + f"df.loc[df['{headers[0]}'] == '{label}', '{headers[2]}'] = {value}\n" + WRITE))


def update_text(key, headers, rows, rng):
    i = rng.randrange(len(rows))
    new = rng.choice(["Archived", "Pending", "Review"])
    return ("cell_update", f"Set the {headers[1]} of {rows[i][0]} to '{new}'.", (
        f"worksheet.update_acell('B{i + 2}', '{new}')",
        READ + f"df.loc[df['{headers[0]}'] == '{rows[i][0]}', '{headers[1]}'] = '{new}'\n" + WRITE))


def sort_desc(key, headers, rows, rng):
    return ("sorting", f"Sort the table by {headers[2]} from highest to lowest.", (
        f"worksheet.sort((3, 'des'), range='A2:D{_last(rows)}')",
        READ + f"df = df.sort_values('{headers[2]}', ascending=False)\n" + WRITE))


def sort_asc(key, headers, rows, rng):
    return ("sorting", f"Sort the rows by {headers[3]} in ascending order.", (
        f"worksheet.sort((4, 'asc'), range='A2:D{_last(rows)}')",
        READ + f"df = df.sort_values('{headers[3]}')\n" + WRITE))


def sort_name(key, headers, rows, rng):
    return ("sorting", f"Sort the table alphabetically by {headers[0]}.", (
        f"worksheet.sort((1, 'asc'), range='A2:D{_last(rows)}')",
        READ + f"df = df.sort_values('{headers[0]}')\n" + WRITE))


def append_row(key, headers, rows, rng):
    label = {"products": "Tablet", "grades": "Kate", "sales": "Central", "inventory": "Pins",
             "employees": "Ella", "expenses": "EX-200"}[key]
    second = rows[0][1]
    a, b = rng.randint(10, 99), rng.randint(1, 9)
    row = [label, second, a, b]
    return ("insert_rows", f"Add a new row at the bottom of the table: {', '.join(map(str, row))}.", (
        f"worksheet.append_row({row!r})",
        READ + f"df = pd.concat([df, pd.DataFrame([{row!r}], columns=df.columns)], ignore_index=True)\n" + WRITE))


def insert_row(key, headers, rows, rng):
    i = rng.randrange(1, len(rows))
    row = [f"New {headers[0]}", rows[i][1], rng.randint(10, 99), rng.randint(1, 9)]
    return ("insert_rows", f"Insert the row {', '.join(map(str, row))} as row {i + 2} of the sheet, "
                           f"above {rows[i][0]}.", (
        f"worksheet.insert_row({row!r}, {i + 2})",))


def delete_row(key, headers, rows, rng):
    i = rng.randrange(len(rows))
    return ("delete_rows", f"Delete the row of {rows[i][0]}.", (
        f"worksheet.delete_rows({i + 2})",
        READ + f"df = df[df['{headers[0]}'] != '{rows[i][0]}']\n" + REWRITE))


def delete_below(key, headers, rows, rng):
    threshold = sorted(r[3] for r in rows)[3]
    doomed = [i + 2 for i, r in enumerate(rows) if r[3] < threshold]
    deletes = "\n".join(f"worksheet.delete_rows({r})" for r in sorted(doomed, reverse=True))
    return ("delete_rows", f"Remove every row whose {headers[3]} is below {threshold}.", (
        deletes, READ + f"df = df[df['{headers[3]}'] >= {threshold}]\n" + REWRITE))


def delete_column(key, headers, rows, rng):
    return ("delete_columns", f"Delete the {headers[1]} column.", (
        "worksheet.delete_columns(2)",
        READ + f"df = df.drop(columns=['{headers[1]}'])\n" + REWRITE))


def insert_column(key, headers, rows, rng):
    values = [[headers[0] + " ID"]] + [[f"ID-{i + 1:02d}"] for i in range(len(rows))]
    return ("insert_columns", f"Insert a new first column '{headers[0]} ID' numbering the rows ID-01, ID-02, ...", (
        f"worksheet.insert_cols([{[v[0] for v in values]!r}], 1)",
        READ + f"df.insert(0, '{headers[0]} ID', {[v[0] for v in values[1:]]!r})\n" + WRITE))


def product_column(key, headers, rows, rng):
    name = "Total"
    n = _last(rows)
    return ("insert_columns", f"Add a column E named {name} with {headers[2]} times {headers[3]} for each row.", (
        f"worksheet.update_acell('E1', '{name}')\n"
        f"worksheet.update([[f'=C{{i}}*D{{i}}'] for i in range(2, {n + 1})], 'E2:E{n}', raw=False)",
        READ + f"df['{name}'] = df['{headers[2]}'] * df['{headers[3]}']\n" + WRITE))


def totals_row(key, headers, rows, rng):
    n = _last(rows)
    return ("cell_update", f"Below the table, add a row labelled Total with the sums of {headers[2]} and "
                           f"{headers[3]} as formulas.", (
        f"worksheet.update([['Total', '', '=SUM(C2:C{n})', '=SUM(D2:D{n})']], 'A{n + 1}:D{n + 1}', raw=False)",
        f"worksheet.update_acell('A{n + 1}', 'Total')\nworksheet.update_acell('C{n + 1}', '=SUM(C2:C{n})')\n"
        f"worksheet.update_acell('D{n + 1}', '=SUM(D2:D{n})')"))


def average_cell(key, headers, rows, rng):
    n = _last(rows)
    return ("cell_update", f"In cell F1 write 'Average {headers[2]}' and in F2 a formula for the average "
                           f"{headers[2]}, rounded to 2 decimals.", (
        f"worksheet.update([['Average {headers[2]}'], ['=ROUND(AVERAGE(C2:C{n}),2)']], 'F1:F2', raw=False)",))


def countif_cell(key, headers, rows, rng):
    n = _last(rows)
    category = rows[0][1]
    return ("cell_update", f"In H1 write 'Count' and in H2 a formula counting the rows whose {headers[1]} is "
                           f"{category}.", (
        f"worksheet.update_acell('H1', 'Count')\nworksheet.update_acell('H2', '=COUNTIF(B2:B{n},\"{category}\")')",))


def merge_title(key, headers, rows, rng):
    title = f"{key.title()} Report"
    return ("merging", f"Insert a title row '{title}' above the table and merge it across columns A to D.", (
        f"worksheet.insert_row(['{title}'], 1)\nworksheet.merge_cells('A1:D1')",))


def merge_cells(key, headers, rows, rng):
    i = rng.randrange(len(rows) - 1)
    return ("merging", f"Merge cells B{i + 2} and B{i + 3}.", (f"worksheet.merge_cells('B{i + 2}:B{i + 3}')",))


def filter_rows(key, headers, rows, rng):
    category = rows[rng.randrange(len(rows))][1]
    return ("filtering", f"Keep only the rows whose {headers[1]} is {category}.", (
        READ + f"df = df[df['{headers[1]}'] == '{category}']\n" + REWRITE,))


def filter_threshold(key, headers, rows, rng):
    threshold = sorted(r[2] for r in rows)[len(rows) // 2]
    return ("filtering", f"Filter the sheet so that only rows with {headers[2]} of at least {threshold} remain.", (
        READ + f"df = df[df['{headers[2]}'] >= {threshold}]\n" + REWRITE,))


def basic_filter(key, headers, rows, rng):
    return ("filtering", f"Turn on a filter over the table (A1:D{_last(rows)}).", (
        f"worksheet.set_basic_filter('A1:D{_last(rows)}')",))


def bold_header(key, headers, rows, rng):
    return ("formatting", "Make the header row bold.", (
        "worksheet.format('A1:D1', {'textFormat': {'bold': True}})",))


def currency(key, headers, rows, rng):
    return ("formatting", f"Format the {headers[2]} column (C2:C{_last(rows)}) as currency with two decimals.", (
        f"worksheet.format('C2:C{_last(rows)}', {{'numberFormat': {{'type': 'CURRENCY', 'pattern': '$#,##0.00'}}}})",))


def highlight(key, headers, rows, rng):
    i = rng.randrange(len(rows))
    return ("formatting", f"Give the row of {rows[i][0]} a yellow background.", (
        f"worksheet.format('A{i + 2}:D{i + 2}', {{'backgroundColor': {{'red': 1, 'green': 1, 'blue': 0}}}})",))


def freeze_header(key, headers, rows, rng):
    return ("formatting", "Freeze the header row and center its text.", (
        "worksheet.freeze(rows=1)\nworksheet.format('A1:D1', {'horizontalAlignment': 'CENTER'})",))


def pivot_sum(key, headers, rows, rng):
    n = _last(rows)
    request = ("{'updateCells': {'rows': [{'values': [{'pivotTable': {'source': {'sheetId': worksheet.id, "
               f"'startRowIndex': 0, 'endRowIndex': {n}, 'startColumnIndex': 0, 'endColumnIndex': 4}}, "
               "'rows': [{'sourceColumnOffset': 1, 'showTotals': True, 'sortOrder': 'ASCENDING'}], "
               "'values': [{'summarizeFunction': 'SUM', 'sourceColumnOffset': 2}]}}]}], "
               "'start': {'sheetId': pivot.id, 'rowIndex': 0, 'columnIndex': 0}, 'fields': 'pivotTable'}}")
    return ("pivot_tables", f"Create a pivot table in a new sheet named Pivot that sums {headers[2]} by "
                            f"{headers[1]}.", (
        "pivot = sheet.add_worksheet(title='Pivot', rows=20, cols=5)\n"
        f"sheet.batch_update({{'requests': [{request}]}})",))


def pivot_average(key, headers, rows, rng):
    n = _last(rows)
    request = ("{'updateCells': {'rows': [{'values': [{'pivotTable': {'source': {'sheetId': worksheet.id, "
               f"'startRowIndex': 0, 'endRowIndex': {n}, 'startColumnIndex': 0, 'endColumnIndex': 4}}, "
               "'rows': [{'sourceColumnOffset': 1, 'showTotals': True, 'sortOrder': 'ASCENDING'}], "
               "'values': [{'summarizeFunction': 'AVERAGE', 'sourceColumnOffset': 3}]}}]}], "
               "'start': {'sheetId': worksheet.id, 'rowIndex': 0, 'columnIndex': 6}, 'fields': 'pivotTable'}}")
    return ("pivot_tables", f"Add a pivot table at G1 of this sheet with the average {headers[3]} per "
                            f"{headers[1]}.", (f"sheet.batch_update({{'requests': [{request}]}})",))


def pandas_scale(key, headers, rows, rng):
    percent = rng.choice([5, 10, 20])
    return ("pandas", f"Increase every {headers[2]} by {percent}% and round to 2 decimals.", (
        READ + f"df['{headers[2]}'] = (df['{headers[2]}'] * {1 + percent / 100}).round(2)\n" + WRITE,))


def pandas_summary(key, headers, rows, rng):
    return ("pandas", f"In a new sheet named Summary, write the total {headers[3]} for each {headers[1]} "
                      f"(columns {headers[1]} and {headers[3]}, sorted by {headers[1]}).", (
        READ + f"summary = df.groupby('{headers[1]}')['{headers[3]}'].sum().reset_index()\n"
        "summary_ws = sheet.add_worksheet(title='Summary', rows=20, cols=5)\n"
        "set_with_dataframe(summary_ws, summary)",))


def pandas_rank(key, headers, rows, rng):
    return ("pandas", f"Add a column E named Rank ranking the rows by {headers[2]} (1 = highest).", (
        READ + f"df['Rank'] = df['{headers[2]}'].rank(ascending=False).astype('int64')\n" + WRITE,))


def rename_header(key, headers, rows, rng):
    new = f"{headers[3]} (units)" if key != "grades" else "Science Score"
    return ("cell_update", f"Rename the {headers[3]} column header to '{new}'.", (
        f"worksheet.update_acell('D1', '{new}')",
        READ + f"df = df.rename(columns={{'{headers[3]}': '{new}'}})\n" + WRITE))


# -- templates over Drive, dates, named ranges, hidden rows and columns and data validation ---------
# (toolgym's additions: the paper's categories do not cover them)
def copy_template(key, headers, rows, rng):
    title = f"{key.title()} {rng.choice([2025, 2026, 2027])}"
    n = _last(rows)
    return ("drive", f"Use this spreadsheet as a template: make a copy of it named '{title}' and, in the copy only, "
                     f"empty the data rows (rows 2 to {n}) so that just the header row remains.", (
        f"new = copy_spreadsheet(sheet, '{title}')\nnew.sheet1.batch_clear(['A2:D{n}'])",
        f"new = copy_spreadsheet(sheet, '{title}')\nnew.sheet1.delete_rows(2, {n})"))


def copy_edit(key, headers, rows, rng):
    title = f"{key.title()} Archive"
    return ("drive", f"Make a copy of this spreadsheet named '{title}' and delete the {headers[1]} column from the "
                     f"copy, leaving the original unchanged.", (
        f"archive = copy_spreadsheet(sheet, '{title}')\narchive.sheet1.delete_columns(2)",
        f"archive = copy_spreadsheet(sheet, '{title}')\nws = archive.sheet1\ndf = get_as_dataframe(ws)\n"
        f"df = df.drop(columns=['{headers[1]}'])\nws.clear()\nset_with_dataframe(ws, df)"))


#: Day 0 of Sheets' serial numbers (1899-12-30), as a proleptic Gregorian ordinal.
_SERIAL_EPOCH = datetime.date(1899, 12, 30).toordinal()


def date_cell(key, headers, rows, rng):
    day = datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randrange(366))
    return ("dates", f"In F1 write 'Last Updated' and in F2 the date {day:%B} {day.day}, {day.year}, shown as "
                     f"yyyy-mm-dd.", (
        f"worksheet.update([['Last Updated'], ['{day.isoformat()}']], 'F1:F2', raw=False)",
        f"worksheet.update_acell('F1', 'Last Updated')\n"
        f"worksheet.update_acell('F2', {day.toordinal() - _SERIAL_EPOCH})\n"
        "worksheet.format('F2', {'numberFormat': {'type': 'DATE', 'pattern': 'yyyy-mm-dd'}})"))


def date_column(key, headers, rows, rng):
    start = datetime.date(2025, 1, 1) + datetime.timedelta(days=rng.randrange(300))
    days = [(start + datetime.timedelta(days=i)).isoformat() for i in range(len(rows))]
    n = _last(rows)
    fmt = "{'numberFormat': {'type': 'DATE', 'pattern': 'mmm d, yyyy'}}"
    serial = start.toordinal() - _SERIAL_EPOCH
    return ("dates", f"Add a column E named 'Review Date' holding consecutive days, {start:%B} {start.day}, "
                     f"{start.year} in row 2, the next day in row 3, and so on, formatted like 'Jan 5, 2025'.", (
        f"worksheet.update([['Review Date']] + [[d] for d in {days!r}], 'E1:E{n}', raw=False)\n"
        f"worksheet.format('E2:E{n}', {fmt})",
        f"worksheet.update([['Review Date']] + [[{serial} + i] for i in range({len(rows)})], 'E1:E{n}')\n"
        f"worksheet.format('E2:E{n}', {fmt})",
        READ + f"df['Review Date'] = {days!r}\n" + WRITE + f"\nworksheet.format('E2:E{n}', {fmt})"))


def named_range(key, headers, rows, rng):
    name = f"{headers[2].replace(' ', '_')}_values"
    n = _last(rows)
    return ("named_ranges", f"Define a named range '{name}' covering the {headers[2]} values (C2:C{n}).", (
        f"worksheet.define_named_range('C2:C{n}', '{name}')",
        "sheet.batch_update({'requests': [{'addNamedRange': {'namedRange': {'name': '" + name + "', 'range': "
        f"{{'sheetId': worksheet.id, 'startRowIndex': 1, 'endRowIndex': {n}, 'startColumnIndex': 2, "
        "'endColumnIndex': 3}}}}]})"))


def named_table(key, headers, rows, rng):
    name = f"{key.title()}Table"
    n = _last(rows)
    return ("named_ranges", f"Give the whole table, headers included (A1:D{n}), the name {name}.", (
        f"worksheet.define_named_range('A1:D{n}', '{name}')",
        "sheet.batch_update({'requests': [{'addNamedRange': {'namedRange': {'name': '" + name + "', 'range': "
        f"{{'sheetId': worksheet.id, 'startRowIndex': 0, 'endRowIndex': {n}, 'startColumnIndex': 0, "
        "'endColumnIndex': 4}}}}]})"))


def hide_rows(key, headers, rows, rng):
    i = rng.randrange(len(rows) - 2)
    first, last = i + 2, i + 4
    request = ("{'updateDimensionProperties': {'range': {'sheetId': worksheet.id, 'dimension': 'ROWS', "
               f"'startIndex': {first - 1}, 'endIndex': {last}}}, 'properties': {{'hiddenByUser': True}}, "
               "'fields': 'hiddenByUser'}}")
    return ("hidden", f"Hide rows {first} to {last} (the rows of {rows[i][0]}, {rows[i + 1][0]} and "
                      f"{rows[i + 2][0]}) without deleting them.", (
        f"worksheet.hide_rows({first - 1}, {last})",
        f"sheet.batch_update({{'requests': [{request}]}})"))


def hide_column(key, headers, rows, rng):
    request = ("{'updateDimensionProperties': {'range': {'sheetId': worksheet.id, 'dimension': 'COLUMNS', "
               "'startIndex': 3, 'endIndex': 4}, 'properties': {'hiddenByUser': True}, 'fields': 'hiddenByUser'}}")
    return ("hidden", f"Hide the {headers[3]} column (column D) without deleting it.", (
        "worksheet.hide_columns(3, 4)", f"sheet.batch_update({{'requests': [{request}]}})"))


def validation_list(key, headers, rows, rng):
    choices = sorted({r[1] for r in rows})
    n = _last(rows)
    values = ", ".join(f"{{'userEnteredValue': '{c}'}}" for c in choices)
    request = (f"{{'setDataValidation': {{'range': {{'sheetId': worksheet.id, 'startRowIndex': 1, 'endRowIndex': {n}, "
               f"'startColumnIndex': 1, 'endColumnIndex': 2}}, 'rule': {{'condition': {{'type': 'ONE_OF_LIST', "
               f"'values': [{values}]}}, 'strict': True, 'showCustomUi': True}}}}}}")
    return ("data_validation", f"Make the {headers[1]} cells (B2:B{n}) a dropdown that only accepts "
                               f"{', '.join(choices)}, rejecting anything else.", (
        f"worksheet.add_validation('B2:B{n}', ValidationConditionType.one_of_list, {choices!r}, strict=True, "
        "showCustomUi=True)",
        f"sheet.batch_update({{'requests': [{request}]}})"))


def validation_number(key, headers, rows, rng):
    n = _last(rows)
    request = (f"{{'setDataValidation': {{'range': {{'sheetId': worksheet.id, 'startRowIndex': 1, 'endRowIndex': {n}, "
               "'startColumnIndex': 3, 'endColumnIndex': 4}, 'rule': {'condition': {'type': 'NUMBER_GREATER', "
               "'values': [{'userEnteredValue': '0'}]}, 'strict': True, 'inputMessage': 'A positive number'}}}")
    return ("data_validation", f"Only allow numbers greater than 0 in the {headers[3]} cells D2:D{n}: reject other "
                               f"input and show the help text 'A positive number'.", (
        f"worksheet.add_validation('D2:D{n}', ValidationConditionType.number_greater, ['0'], strict=True, "
        "inputMessage='A positive number')",
        f"sheet.batch_update({{'requests': [{request}]}})"))


TEMPLATES: tuple[Template, ...] = (
    update_cell, update_text, sort_desc, sort_asc, sort_name, append_row, insert_row, delete_row, delete_below,
    delete_column, insert_column, product_column, totals_row, average_cell, countif_cell, merge_title, merge_cells,
    filter_rows, filter_threshold, basic_filter, bold_header, currency, highlight, freeze_header, pivot_sum,
    pivot_average, pandas_scale, pandas_summary, pandas_rank, rename_header,
    # toolgym's additions (appended, so that the tasks above keep their tables)
    copy_template, copy_edit, date_cell, date_column, named_range, named_table, hide_rows, hide_column,
    validation_list, validation_number)
#: Templates whose tasks are demonstrations only (the test set holds the others).
DEMO_TEMPLATES = frozenset({"countif_cell", "rename_header", "highlight"})
#: Tables each test template is instantiated on.
TABLES_PER_TEMPLATE = 3
CATEGORIES = ("cell_update", "sorting", "insert_rows", "delete_rows", "insert_columns", "delete_columns", "merging",
              "filtering", "formatting", "pivot_tables", "pandas",
              # toolgym's additions, over what the simulation adds to the paper's operations
              "drive", "dates", "named_ranges", "hidden", "data_validation")


def describe_table(title: str, table: list[list]) -> str:
    """What a query says about its worksheet: its columns and data rows."""
    headers = ", ".join(str(h) for h in table[0])
    return (f"The worksheet of the '{title}' spreadsheet has the columns {headers} in row 1 and "
            f"{len(table) - 1} data rows (rows 2 to {len(table)}).")


def builtin_tasks(seed: int) -> dict[str, SheetTask]:
    """The test tasks: task id ("<table>-<template>") -> task; each test template on three tables."""
    tables = make_tables(seed)
    keys = list(tables)
    tasks: dict[str, SheetTask] = {}
    tests = [t for t in TEMPLATES if t.__name__ not in DEMO_TEMPLATES]
    for number, template in enumerate(tests):
        for k in range(TABLES_PER_TEMPLATE):
            key = keys[(number + 2 * k) % len(keys)]
            title, table = tables[key]
            rng = random.Random(f"{seed}-{key}-{template.__name__}")
            category, query, programs = template(key, table[0], table[1:], rng)
            tasks[f"{key}-{template.__name__}"] = SheetTask(key, category, f"{query} {describe_table(title, table)}",
                                                            programs)
    return dict(sorted(tasks.items()))


def demo_pool(seed: int) -> list[tuple[str, str, str]]:
    """Demonstrations: (spreadsheet, query, program), none of them a test task."""
    tables = make_tables(seed)
    demos = []
    for key, (title, table) in tables.items():
        for template in TEMPLATES:
            if template.__name__ in DEMO_TEMPLATES:
                rng = random.Random(f"demo-{seed}-{key}-{template.__name__}")
                category, query, programs = template(key, table[0], table[1:], rng)
                demos.append((key, f"{query} {describe_table(title, table)}", programs[0]))
    return demos
