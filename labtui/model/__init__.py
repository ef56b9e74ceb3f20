"""labtui's vocabulary of what is run and what was measured: profile.py (workload steps and profiles,
with their rules) and result.py (run and step results, samples, the host and target they were of).
"""
