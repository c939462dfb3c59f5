-- name: framework
-- kind: query
-- params: none
-- needs: strings
-- framework: which framework the profile shows, for framework-specific advice. PyTorch: one of its kernel names
-- (ATen's `at::native::` kernels), libraries (libtorch*, libc10*) or autograd threads (pt_autograd_*) among the
-- profile's strings, which hold the kernel, module and thread names.
SELECT
    EXISTS (
        SELECT 1 FROM strings
        WHERE value LIKE '%at::native::%' OR value LIKE '%libtorch%' OR value LIKE '%libc10%'
              OR value LIKE 'pt_autograd%'
    ) AS pytorch                               -- true: the profile shows PyTorch
