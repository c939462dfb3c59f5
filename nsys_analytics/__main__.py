"""`python -m nsys_analytics` = the `nsys-analytics` command."""

from .cli.main import run

run()
