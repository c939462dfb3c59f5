"""`python -m nsys_analytics` = the `nsys-analytics` command."""

from .cli.launch import run

run()
