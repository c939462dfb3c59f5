"""Derived metrics from `NAME=EXPRESSION` text, evaluated safely: arithmetic on metric and parameter names.

The expression is parsed with Python's `ast` and walked here; nothing is ever passed to `eval`.
Allowed: numbers, names (metric names keep their dots: `gpu__time_duration.sum`; parameters such as
`M`; the columns of the table such as `duration_ns`), `+ - * / // % **`, unary `+`/`-` and
parentheses. Everything else (calls, attribute access on values, subscripts, strings, comparisons,
lambdas) is refused. Values are metric values in base units (ns, byte, ...), as floats.

    tflops=2*M*N*K/gpu__time_duration.sum/1e3       # FLOP per ns = GFLOP/s; /1e3 -> TFLOP/s
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...core.errors import UsageError

MAX_LENGTH = 1000
MAX_NODES = 200
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


@dataclass(frozen=True)
class Derived:
    """A derived metric: `name` = `expression`, over the variables `names`."""

    name: str
    expression: str
    tree: ast.Expression
    names: tuple[str, ...]

    def evaluate(self, variables: Mapping[str, Any]) -> Any:
        """The value (a number, or a pandas Series when the variables are Series)."""
        try:
            return _eval(self.tree.body, variables)
        except ZeroDivisionError as e:
            raise UsageError(f"--derive {self.name}: division by zero in {self.expression!r}") from e
        except OverflowError as e:
            raise UsageError(f"--derive {self.name}: the result of {self.expression!r} is too large") from e
        except TypeError as e:  # a text metric or parameter
            raise UsageError(f"--derive {self.name}: {self.expression!r} uses a value that is not a number") from e


def parse_derive(spec: str) -> Derived:
    """'tflops=2*M*N*K/gpu__time_duration.sum/1e3' -> Derived; UsageError when it is not allowed."""
    name, sep, expression = spec.partition("=")
    name, expression = name.strip(), expression.strip()
    if not sep or not _NAME.match(name):
        raise UsageError(f"--derive {spec!r}: write NAME=EXPRESSION with a plain NAME, "
                         "e.g. tflops=2*M*N*K/duration_ns/1e3")
    return compile_expression(name, expression)


def compile_expression(name: str, expression: str) -> Derived:
    if not expression:
        raise UsageError(f"--derive {name}: the expression is empty")
    if len(expression) > MAX_LENGTH:
        raise UsageError(f"--derive {name}: the expression is longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as e:
        raise UsageError(f"--derive {name}: {expression!r} is not an arithmetic expression ({e.msg})") from e
    nodes = list(ast.walk(tree))
    if len(nodes) > MAX_NODES:
        raise UsageError(f"--derive {name}: the expression has more than {MAX_NODES} parts")
    names = tuple(dict.fromkeys(_check(tree.body, name)))
    return Derived(name, expression, tree, names)


def _check(node: ast.AST, name: str) -> list[str]:
    """The variable names used by `node`; UsageError for anything that is not plain arithmetic."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise UsageError(f"--derive {name}: only numbers may appear as constants, not {node.value!r}")
        return []
    if isinstance(node, (ast.Name, ast.Attribute)):
        return [_dotted(node, name)]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _check(node.left, name) + _check(node.right, name)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _check(node.operand, name)
    raise UsageError(f"--derive {name}: {type(node).__name__} is not allowed; use numbers, metric and parameter "
                     "names, + - * / // % ** and parentheses")


def _dotted(node: ast.AST, name: str) -> str:
    """`gpu__time_duration.sum` parses as attribute access; read it back as one name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value, name)}.{node.attr}"
    raise UsageError(f"--derive {name}: {type(node).__name__} is not allowed inside a name")


def _eval(node: ast.AST, variables: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return variables[_dotted(node, "")]
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_eval(node.left, variables), _eval(node.right, variables))
    return _UNARY[type(node.op)](_eval(node.operand, variables))  # UnaryOp, checked by _check
