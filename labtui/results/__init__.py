"""What labtui keeps under its data root and reads back: the store of result and profile files,
the summary index, baselines, and other tools' results turned into labtui results. No Textual."""
