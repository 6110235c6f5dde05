"""A fix for Triton 3.6's interpreter (TRITON_INTERPRET=1) under NumPy >= 2.4.

The interpreter turns a scalar kernel argument into a tensor whose `__index__` is
`int(self.handle.data)`, where data is a 1-element, 1-d array; NumPy 2.4 made int() of such an
array a TypeError ("only 0-dimensional arrays can be converted to Python scalars"). Any kernel
looping over a runtime bound (`for t in range(T)`, `for k in range(0, K, BLOCK_K)`) then fails in
CPU mode although it is correct. We re-patch `__index__` to take the single element explicitly.
No effect on GPU runs (the interpreter is not used there)."""

installed = None  # the patched function, once installed (trust.Guard knows it as the worker's)


def install():
    global installed
    from triton.runtime import interpreter
    original = interpreter._patch_lang_tensor
    if getattr(original, "_kforge_compat", False):
        return

    def patched(tensor, scope):
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))

    patched._kforge_compat = True
    interpreter._patch_lang_tensor = installed = patched
