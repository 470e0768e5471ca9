"""One interpreter for the programs agents write, with a profile per env.

A program is Python-like text. It is parsed with :mod:`ast` and checked node by node against
its env's :class:`Profile` before anything runs (which statements and expressions, which
functions, namespace calls such as ``API.f(...)`` and methods, which builtins and helpers),
then run node by node; nothing is ever passed to ``eval`` or ``exec``. Budgets bound the work
of a run before it is done: evaluated nodes, the deep size of every value created (through
nesting and aliases, so ``[x] * 10`` repeated cannot grow exponentially), the work of
comparisons, ``in``, sorting, hashing and conversions to text, and the items created in all.
Every failure is a :class:`ProgramError` whose message names the line and is meant for the
agent.

One rule for the steps of every env that runs programs, in every step mode: a program (or
statement) that is refused, by a syntax error or a rule, or that fails while it runs, leaves
nothing behind. The world and the program's namespace are as they were before the step, the
observation states the error, and the step counts. In a single-step mode that ends the
episode (not executable); in a multi-step mode the episode goes on (and is truncated at its
step limit as any other step).
"""

from toolgym.worlds.interpreter.checker import Program, Statement, check, describe
from toolgym.worlds.interpreter.evaluator import Interpreter
from toolgym.worlds.interpreter.profile import Profile, api_calls, code_as_policies
from toolgym.worlds.interpreter.values import (
    Budgets, ProgramError, call_source, literal_source, preview, shorten,
)

__all__ = ["Budgets", "Interpreter", "Profile", "Program", "ProgramError", "Statement", "api_calls", "call_source",
           "check", "code_as_policies", "describe", "literal_source", "preview", "shorten"]
