"""What labtui reads of the machine it runs on: disks and volumes (devices), the target a person
picks and why one is refused (target_choice), every volume a sweep can run on (volume_sweep), where
a path will be written (paths), and what is on a raw block device with the hold that keeps a
person's consent to destroy it true (guard).

Facts, not measurements: nothing here generates I/O or knows an engine; the engines, the run and
the screens below and above read from here.
"""
