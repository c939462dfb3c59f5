"""`diagnose`: why the GPU waits. nsys' expert rules, cell for cell, and rules beyond them."""

from .beyond import BEYOND_RULES, Thresholds
from .data import Window
from .findings import Finding
from .nsys_rules import NSYS_RULES, NsysOptions
from .report import RULES, DiagnoseReport, diagnose

__all__ = ["BEYOND_RULES", "NSYS_RULES", "RULES", "DiagnoseReport", "Finding", "NsysOptions", "Thresholds",
           "Window", "diagnose"]
