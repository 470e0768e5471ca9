"""BFCL's MathAPI: stateless arithmetic, statistics and unit conversions.

Results and errors word for word as BFCL's class returns them, including two that BFCL's
executor cannot write as JSON and so prints with ``str``: ``logarithm`` gives an mpmath number
(``{'result': mpf('2.0')}``, printed at the precision asked for) and ``square_root`` a
``Decimal``. BFCL sets mpmath's and :mod:`decimal`'s global precision to do so; here each call
uses a local precision and leaves the process's settings alone. To keep every call short,
integer powers beyond :data:`MAX_POWER_BITS` fail with the error Python gives when printing
such a number (BFCL computes it first), and precisions above :data:`MAX_PRECISION` digits are
refused (BFCL computes them).
"""

from __future__ import annotations

import decimal
import math

from toolgym.worlds.bfcl.api import BfclAPI

#: The most digits ``logarithm`` and ``square_root`` compute (BFCL has no limit; this keeps a call short).
MAX_PRECISION = 10_000
#: Integer powers above this many bits are not computed: Python could not print them anyway.
MAX_POWER_BITS = 20_000
try:
    str(10**4300)
except ValueError as exc:  # Python's own words for an integer too long to print, which BFCL shows
    INT_TOO_LONG = str(exc)
else:  # the interpreter's limit is off: the message BFCL shows on a default interpreter
    INT_TOO_LONG = ("Exceeds the limit (4300 digits) for integer string conversion; "
                    "use sys.set_int_max_str_digits() to increase the limit")
METERS_PER = {"km": 1000, "m": 1, "cm": 0.01, "mm": 0.001, "um": 1e-6, "nm": 1e-9}
IMPERIAL_FACTORS = {
    "cm_to_in": 0.393701, "in_to_cm": 2.54, "m_to_ft": 3.28084, "ft_to_m": 0.3048, "m_to_yd": 1.09361,
    "yd_to_m": 0.9144, "km_to_miles": 0.621371, "miles_to_km": 1.60934, "kg_to_lb": 2.20462,
    "lb_to_kg": 0.453592, "celsius_to_fahrenheit": 1.8, "fahrenheit_to_celsius": 5 / 9,
}


class _Printed:
    """A number that prints as BFCL's executor printed it (its repr fixed when computed)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


class MathAPI(BfclAPI):
    class_name = "MathAPI"
    doc_file = "math_api"

    def work(self, name: str, arguments: dict) -> int:
        """A call at a precision costs its digits (one ``logarithm`` at 10,000 takes 0.16 s)."""
        precision = arguments.get("precision")
        if name in ("logarithm", "square_root") and type(precision) is int and precision > 1:
            return min(precision, MAX_PRECISION)
        return 1

    def logarithm(self, value: float, base: float, precision: int) -> dict:
        """Compute the logarithm of a number with adjustable precision using mpmath."""
        import mpmath

        if isinstance(precision, int) and precision > MAX_PRECISION:
            raise ValueError(f"precision above {MAX_PRECISION} digits is not supported")
        try:
            with mpmath.workdps(precision):
                return {"result": _Printed(repr(mpmath.log(value) / mpmath.log(base)))}
        except Exception as exc:  # BFCL returns any mpmath failure as its message
            return {"error": str(exc)}

    def mean(self, numbers: list) -> dict:
        """Calculate the mean of a list of numbers."""
        if not numbers:
            return {"error": "Cannot calculate mean of an empty list"}
        try:
            return {"result": sum(numbers) / len(numbers)}
        except TypeError:
            return {"error": "All elements in the list must be numbers"}

    def standard_deviation(self, numbers: list) -> dict:
        """Calculate the standard deviation of a list of numbers."""
        if not numbers:
            return {"error": "Cannot calculate standard deviation of an empty list"}
        try:
            mean = sum(numbers) / len(numbers)
            return {"result": math.sqrt(sum((x - mean) ** 2 for x in numbers) / len(numbers))}
        except TypeError:
            return {"error": "All elements in the list must be numbers"}

    def si_unit_conversion(self, value: float, unit_in: str, unit_out: str) -> dict:
        """Convert a value from one SI unit to another."""
        if not isinstance(value, (int, float)):
            return {"error": "Value must be a number"}
        if unit_in not in METERS_PER or unit_out not in METERS_PER:
            return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}
        try:
            return {"result": value * METERS_PER[unit_in] * (1 / METERS_PER[unit_out])}
        except OverflowError:
            return {"error": "Conversion resulted in a value too large to represent"}

    def imperial_si_conversion(self, value: float, unit_in: str, unit_out: str) -> dict:
        """Convert a value between imperial and SI units."""
        if not isinstance(value, (int, float)):
            return {"error": "Value must be a number"}
        if unit_in == unit_out:
            return {"result": value}
        key = f"{unit_in}_to_{unit_out}"
        if key not in IMPERIAL_FACTORS:
            return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}
        try:
            if key == "celsius_to_fahrenheit":
                return {"result": value * IMPERIAL_FACTORS[key] + 32}
            if key == "fahrenheit_to_celsius":
                return {"result": (value - 32) * IMPERIAL_FACTORS[key]}
            return {"result": value * IMPERIAL_FACTORS[key]}
        except OverflowError:
            return {"error": "Conversion resulted in a value too large to represent"}

    def add(self, a: float, b: float) -> dict:
        """Add two numbers."""
        try:
            return {"result": a + b}
        except TypeError:
            return {"error": "Both inputs must be numbers"}

    def subtract(self, a: float, b: float) -> dict:
        """Subtract one number from another."""
        try:
            return {"result": a - b}
        except TypeError:
            return {"error": "Both inputs must be numbers"}

    def multiply(self, a: float, b: float) -> dict:
        """Multiply two numbers."""
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return {"error": "Both inputs must be numbers"}
        return {"result": a * b}

    def divide(self, a: float, b: float) -> dict:
        """Divide one number by another."""
        try:
            if b == 0:
                return {"error": "Cannot divide by zero"}
            return {"result": a / b}
        except TypeError:
            return {"error": "Both inputs must be numbers"}

    def power(self, base: float, exponent: float) -> dict:
        """Raise a number to a power."""
        if type(base) is int and type(exponent) is int and exponent > 0 \
                and exponent * max(abs(base), 1).bit_length() > MAX_POWER_BITS:
            raise ValueError(INT_TOO_LONG)
        try:
            return {"result": base**exponent}
        except TypeError:
            return {"error": "Both inputs must be numbers"}

    def square_root(self, number: float, precision: int) -> dict:
        """Calculate the square root of a number with adjustable precision using the decimal module."""
        try:
            if number < 0:
                return {"error": "Cannot calculate square root of a negative number"}
            if isinstance(precision, int) and precision > MAX_PRECISION:
                raise ValueError(f"precision above {MAX_PRECISION} digits is not supported")
            return {"result": decimal.Decimal(number).sqrt(decimal.Context(prec=precision))}
        except (TypeError, decimal.InvalidOperation):
            return {"error": "Input must be a number or computation resulted in an invalid operation"}

    def absolute_value(self, number: float) -> dict:
        """Calculate the absolute value of a number."""
        try:
            return {"result": abs(number)}
        except TypeError:
            return {"error": "Input must be a number"}

    def round_number(self, number: float, decimal_places: int = 0) -> dict:
        """Round a number to a specified number of decimal places."""
        if type(number) in (int, bool) and type(decimal_places) in (int, bool) \
                and -decimal_places > len(str(abs(number))):
            # Python would compute 10**-decimal_places first (10**(10**8) takes minutes); the
            # power is more than twice the number, so the result is 0, as Python gives it.
            return {"result": 0}
        try:
            return {"result": round(number, decimal_places)}
        except TypeError:
            return {"error": "First input must be a number, second input must be an integer"}

    def percentage(self, part: float, whole: float) -> dict:
        """Calculate the percentage of a part relative to a whole."""
        try:
            if whole == 0:
                return {"error": "Whole value cannot be zero"}
            return {"result": (part / whole) * 100}
        except TypeError:
            return {"error": "Both inputs must be numbers"}

    def min_value(self, numbers: list) -> dict:
        """Find the minimum value in a list of numbers."""
        if not numbers:
            return {"error": "Cannot find minimum of an empty list"}
        try:
            return {"result": min(numbers)}
        except TypeError:
            return {"error": "All elements in the list must be numbers"}

    def max_value(self, numbers: list) -> dict:
        """Find the maximum value in a list of numbers."""
        if not numbers:
            return {"error": "Cannot find maximum of an empty list"}
        try:
            return {"result": max(numbers)}
        except TypeError:
            return {"error": "All elements in the list must be numbers"}

    def sum_values(self, numbers: list) -> dict:
        """Calculate the sum of a list of numbers."""
        if not numbers:
            return {"error": "Cannot calculate sum of an empty list"}
        try:
            return {"result": sum(numbers)}
        except TypeError:
            return {"error": "All elements in the list must be numbers"}
