"""The native engine: labtui's own I/O in pure Python, in worker processes (nothing to install).

engine.py drives a step (NativeEngine); worker.py is the worker process (`python -m
labtui.engine.native.worker`) with its kernel AIO and blocking loops; uring_loop.py its io_uring
loop over uring.py's system calls; common.py what the worker and the engine share (the memory
layout, the counters); histogram.py the latency buckets. Kept empty: the worker imports this
package, and starts the faster for it.
"""
