"""Static analyses of cutlass-dialect kernels: the pipeline model checker and the CPU simulator.

``barriers`` is the executable hardware model, ``protocol`` the per-agent protocol the checker
explores, ``explore`` the exhaustive search, ``properties`` the property names and checks,
``counterexample`` the readable traces, ``extract`` the IR front end and ``simulate`` the
seeded random scheduler.
"""
