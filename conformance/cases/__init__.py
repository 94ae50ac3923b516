"""The suite's case catalogues: scan cases per family and the input classes.

Layering (each module imports only those above it): guard -> scan (ScanCase, keys,
placement) -> <family>_kernels (fastcdc, buzhash64, buzhash, aes: each family's side of the scan
adapter) -> kernels (a case run on a kernel and on the model)
-> mask_shapes, segments, strides, aes_segments, fastcdc_limits -> common (the catalogue the scan
families share) -> <family>_family (each family's own cases: fastcdc, buzhash64,
buzhash, fixed, aes) -> families (the registry of families); catalogue
(adversarial inputs) feeds common; keylog -> buzhash64_keys, aes_keys (each keyed
family's key derivations) -> keystream; classes and keystream (input classes)
build on families.
"""
