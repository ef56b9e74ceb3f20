"""What labtui writes out for people and programs, never read back: rich tables of results and
comparisons, Markdown, the export formats."""
