"""Kernel names of libraries and compilers that used to land in `other`: TorchInductor's autotuning benchmarks, CuPy,
thrust/cub sorts, hash joins, nvFuser, up-sampling, cuDNN layout changes, hand-written vector kernels.

Each expected category is written by hand from what the kernel does (its library's source or documentation), with
the rule that must decide it, so that a broader rule placed earlier cannot take the name by accident. Names marked
"real" were read from an export in ../shared/profiles; the others are written as the library names its kernels.
"""

from __future__ import annotations

import pytest

from nsys_analytics.capabilities.categories import load_rules

NVFUSER_TMA = ("<unnamed>::nvfuser_none_f0_c0_r0_g0(<unnamed>::Tensor<<unnamed>::__half, (int)3, (int)3>, "
               "<unnamed>::Tensor<<unnamed>::__half, (int)3, (int)3>, <unnamed>::TensorMap, <unnamed>::TensorMap, "
               "<unnamed>::TensorMap, <unnamed>::Tensor<<unnamed>::__half, (int)2, (int)2>)")  # real: NVIDIA/Fuser
CUDF_SORT = ("void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__merge_sort::BlockSortAgent<int*, int*, "
             "long, cudf::row_lexicographic_comparator<false>, thrust::detail::integral_constant<bool, false>, "
             "thrust::detail::integral_constant<bool, true> >, bool, int*, int*, long, int*, int*, "
             "cudf::row_lexicographic_comparator<false> >(bool, int*, int*, long, int*, int*, "
             "cudf::row_lexicographic_comparator<false>)")  # real: quasiben/nvtx-examples (cuDF)

# (name, category, rule)
LIBRARY_NAMES = [
    # TorchInductor autotuning: `triton_` + the template's name (select_algorithm.py) while it benchmarks configs
    ("triton_mm", "matmul", "triton-mm-autotune"),
    ("triton_bmm", "matmul", "triton-mm-autotune"),
    ("triton_addmm", "matmul", "triton-mm-autotune"),
    ("triton_mm_plus_mm", "matmul", "triton-mm-autotune"),
    ("triton_mm_persistent_tma", "matmul", "triton-mm-autotune"),
    ("triton_scaled_mm_device_tma", "matmul", "triton-mm-autotune"),
    ("triton_uint4x2_mixed_mm", "matmul", "triton-mm-autotune"),
    ("triton_convolution2d", "matmul", "triton-conv"),
    ("triton_flex_attention", "attention", "attention"),
    ("triton_flex_decoding", "attention", "attention"),
    # ...and what is not a template: a small mm that Inductor decomposed into a reduction or pointwise kernel
    ("triton_red_fused_mm_0", "reduction", "reduction"),
    ("triton_per_fused_bmm_sum_1", "reduction", "reduction"),
    ("triton_poi_fused_mm_2", "elementwise", "triton-pointwise"),
    ("triton_tem_fused_addmm_0", "matmul", "triton-mm"),
    ("triton_tem_3", "matmul", "triton-template"),  # config.triton.descriptive_names = False
    ("triton_tem_fused_flex_attention_0", "attention", "attention"),
    # kernels that say they multiply matrices
    ("matmul_kernel", "matmul", "matmul-word"),  # Triton's matmul tutorial
    ("MatMulKernel(Matrix, Matrix, Matrix)", "matmul", "matmul-word"),  # the CUDA C programming guide
    ("triton_poi_fused_add_matmul_0", "elementwise", "triton-pointwise"),  # descriptive_names="torch"
    # CuPy: reductions, copies, ufuncs
    ("cupy_sum", "reduction", "cupy-reduction"),
    ("cupy_sum_with_dtype", "reduction", "cupy-reduction"),
    ("cupy_max", "reduction", "cupy-reduction"),
    ("cupy_nanmin", "reduction", "cupy-reduction"),
    ("cupy_all", "reduction", "cupy-reduction"),
    ("cupy_count_nonzero", "reduction", "cupy-reduction"),
    ("cupy_argmax", "reduction", "reduction"),
    ("cupy_copy", "memory", "memory"),
    ("cupy_add", "elementwise", "cupy"),
    ("cupy_multiply", "elementwise", "cupy"),
    ("cupy_maximum", "elementwise", "cupy"),  # the elementwise ufunc, not the cupy_max reduction
    ("cupy_minimum", "elementwise", "cupy"),
    ("cupy_sqrt", "elementwise", "cupy"),
    # cub and thrust sorts (torch.sort, argsort, unique; cuDF), PyTorch's own sorts, top-k and searchsorted
    ("void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, "
     "int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int, int, int)",
     "sort and search", "sort"),
    ("void cub::CUB_200200_800_900_NS::DeviceRadixSortHistogramKernel<cub::CUB_200200_800_900_NS::"
     "DeviceRadixSortPolicy<long, long, unsigned int>::Policy800, (bool)0, long, unsigned int>(T4 *, const T3 *, T4, "
     "int, int)", "sort and search", "sort"),
    ("void cub::DeviceSegmentedRadixSortKernel<cub::DeviceRadixSortPolicy<float, long, int>::Policy800, false, true, "
     "float, long, const int *, const int *, int>(const float *, float *, const long *, long *, const int *, "
     "const int *, int, int, int)", "sort and search", "sort"),
    ("void cub::DeviceMergeSortBlockSortKernel<cub::DeviceMergeSortPolicy<int>::Policy600, int *, int *, int *, int *, "
     "long, thrust::less<int>, int, int>(bool, int *, int *, int *, int *, long, int *, int *, thrust::less<int>)",
     "sort and search", "sort"),
    (CUDF_SORT, "sort and search", "sort"),
    ("void at::native::bitonicSortKVInPlace<(int)2, (int)-1, (int)16, (int)16, float, long, "
     "at::native::GTOp<float, (bool)1>, unsigned int>(at::cuda::detail::TensorInfo<T5, T8>, T8, T8, T8, "
     "at::cuda::detail::TensorInfo<T6, T8>, T8, T7)", "sort and search", "sort"),
    ("void at::native::sbtopk::gatherTopK<float, unsigned int, (int)2, (bool)0>(at::cuda::detail::TensorInfo<const T1, "
     "T2>, T2, T2, bool, T2, T2, at::cuda::detail::TensorInfo<T1, T2>, T2, at::cuda::detail::TensorInfo<long, T2>, T2, "
     "T1 *)", "sort and search", "sort"),  # top-k selects the k largest: not a gather of rows (embedding)
    ("void at::native::<unnamed>::searchsorted_cuda_kernel<float, long>(long *, const float *, const float *, long, "
     "long, long, long, long, long, bool, bool, const long *)", "sort and search", "sort"),
    # cub stream compaction: unique / select-if / partition / run-length encoding; nonzero's stays with nonzero
    ("void cub::CUB_200200_800_900_NS::DeviceSelectSweepKernel<cub::CUB_200200_800_900_NS::DeviceSelectPolicy<float, "
     "cub::CUB_200200_800_900_NS::NullType, int, (bool)0, (bool)0>::Policy350, const float *, "
     "cub::CUB_200200_800_900_NS::NullType *, float *, int *, cub::CUB_200200_800_900_NS::ScanTileState<int, (bool)1>, "
     "cub::CUB_200200_800_900_NS::NullType, cub::CUB_200200_800_900_NS::Equality, int, (bool)1>(T2, T3, T4, T5, T6, "
     "int, T7, T8, T9, int)", "sort and search", "cub-select"),
    ("void cub::CUB_200200_800_900_NS::DeviceSelectSweepKernel<cub::CUB_200200_800_900_NS::DeviceSelectPolicy<bool, "
     "cub::CUB_200200_800_900_NS::NullType, long, (bool)0, (bool)0>::Policy350, "
     "cub::CUB_200200_800_900_NS::TransformInputIterator<bool, at::native::<unnamed>::NonZeroOp<float>, const float *, "
     "long>, long *>(T2, T3, T4)", "embedding", "embedding"),
    ("void cub::DeviceRleSweepKernel<cub::DeviceRlePolicy<long *, long *, long *, int *, long>::Policy350, long *, "
     "long *, long *, int *, cub::ScanTileState<long, true>, cub::Equality, long>(long *, long *, long *, int *, "
     "cub::ScanTileState<long, true>, int, cub::Equality, long)", "sort and search", "cub-select"),
    # histograms count into bins: a reduction
    ("void cub::DeviceHistogramSweepKernel<cub::DispatchHistogram<(int)1, (int)1, const float *, int, float, "
     "int>::PtxHistogramSweepPolicy, (int)0, (int)1, (int)1, const float *, int, float, int>(T5)", "reduction",
     "reduction"),
    ("void at::cuda::detail::kernelHistogram1D<float, float, long, (int)1, (int)2, (int)-1, "
     "(at::cuda::detail::CUDAHistogramMemoryType)1>(at::cuda::detail::TensorInfo<T1, T3>, T3, T3, T2, T2)",
     "reduction", "reduction"),
    # CCCL's transform (thrust::transform since CCCL 2.8) is elementwise, as thrust's __transform was
    ("void cub::CUB_300000_SM_900_NS::detail::transform::transform_kernel<cub::CUB_300000_SM_900_NS::detail::"
     "transform::policy_hub<(bool)1, cuda::std::tuple<const float *>>::policy900, int, thrust::negate<float>, float *, "
     "const float *>(int, int, T3, T4, T5)", "elementwise", "elementwise"),
    ("void cub::DeviceAdjacentDifferenceDifferenceKernel<cub::DeviceAdjacentDifferencePolicy<int>::Policy350, "
     "const int *, int *, long, thrust::minus<int>, (bool)0, (bool)1>(const int *, int *, long, thrust::minus<int>)",
     "elementwise", "adjacent-difference"),
    # hash joins: build a table from one side, probe it with the other
    ("void build_GPU2<128, 4>(int*, int*, int*, int, int, int, int*, int*, int, int*, int, int, int, short*)",
     "sort and search", "hash-join"),  # real: bwyogatama/Mordred
    ("void cudf::detail::probe_hash_table<(cudf::detail::join_kind)1, concurrent_unordered_multimap<unsigned int, "
     "int, unsigned long, 4294967295u, 2147483647> >(int)", "sort and search", "hash-join"),
    ("void cudf::detail::compute_join_output_size<(cudf::detail::join_kind)1>(int)", "sort and search", "hash-join"),
    # thrust adjacent_difference: out[i] = in[i] - in[i-1]
    ("void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__adjacent_difference::AdjacentDifferenceAgent<"
     "thrust::detail::normal_iterator<thrust::device_ptr<int const> >, int*, int, thrust::minus<int> > >(int)",
     "elementwise", "adjacent-difference"),  # real: quasiben/nvtx-examples (cuDF)
    # nvFuser: nvfuser_<scheduler>_f<fusion>_c<cache>_r<runtime>_g<group>
    (NVFUSER_TMA, "matmul", "nvfuser-tma-matmul"),
    ("<unnamed>::nvfuser_none_f0_c0_r0_g0(<unnamed>::Tensor<float, (int)2, (int)2>, <unnamed>::Tensor<float, (int)2, "
     "(int)2>)", "elementwise", "nvfuser-fusion"),  # hand-scheduled, no TMA: what it computes is not in the name
    ("nvfuser_greedy_f0_c1_r0_g0", "elementwise", "nvfuser-fusion"),
    ("nvfuser_resize_f0_c1_r0_g2", "memory", "nvfuser-resize"),
    ("nvfuser_transpose_f0_c1_r0_g0", "memory", "memory"),
    ("nvfuser_pointwise_f1_c1_r0_g0", "elementwise", "elementwise"),
    ("nvfuser_outer_persistent_f0_c1_r0_g0", "reduction", "reduction"),
    ("nvfuser_matmul_f0_c1_r0_g0", "matmul", "other-matmul"),
    # up-sampling: each output interpolated from a few neighbouring inputs
    ("void at::native::<unnamed>::upsample_bilinear2d_out_frame<float, float>(int, T2, T2, bool, "
     "at::GenericPackedTensorAccessor<const T1, (unsigned long)4, at::DefaultPtrTraits, long>, "
     "at::GenericPackedTensorAccessor<T1, (unsigned long)4, at::DefaultPtrTraits, long>)", "elementwise", "upsample"),
    ("void at::native::<unnamed>::upsample_nearest2d_backward_out_frame<float, float, "
     "&at::native::nearest_neighbor_bw_compute_source_index>(const T1 *, unsigned long, unsigned long, unsigned long, "
     "unsigned long, unsigned long, unsigned long, T1 *, float, float)", "elementwise", "upsample"),
    # cuDNN's layout changes around a convolution: a transpose
    ("void cudnn::ops::nchwToNhwcKernel<float, float, float, (bool)0, (bool)1, (cudnnKernelDataType_t)2>("
     "cudnn::ops::nchw2nhwc_params_t<T3>, const T1 *, T2 *)", "memory", "layout-transform"),
    ("void cudnn::ops::nhwcToNchwKernel<__half, __half, float, (bool)1, (bool)0, (cudnnKernelDataType_t)0>("
     "cudnn::ops::nhwc2nchw_params_t<T3>, const T1 *, T2 *)", "memory", "layout-transform"),
    # hand-written vector arithmetic and BLAS level 1
    ("kernVectorAdd(const float *, const float *, float *, int)", "elementwise", "vector-arithmetic"),  # real: p4arth
    ("vectorAdd(const float *, const float *, float *, int)", "elementwise", "vector-arithmetic"),  # CUDA samples
    ("void axpy_kernel_val<float, float>(cublasAxpyParamsVal<float, float, float>)", "elementwise",
     "vector-arithmetic"),
    # not vector arithmetic: PyTorch's vectorized kernels keep their own rules
    ("void at::native::vectorized_gather_kernel<(int)16, long>(char *, char *, T2 *, int, long, long, long, long, "
     "bool)", "embedding", "embedding"),
]


@pytest.fixture(scope="module")
def rules():
    return load_rules()


@pytest.mark.parametrize("name,category,rule", LIBRARY_NAMES, ids=[f"{c}:{n[:50]}" for n, c, _ in LIBRARY_NAMES])
def test_library_kernel_lands_in_its_category_by_its_rule(rules, name, category, rule):
    match = rules.classify(name)
    assert (match.category, match.rule) == (category, rule)


def test_inductor_autotuned_convolution_keeps_the_conv_tag(rules):
    assert rules.classify("triton_convolution2d").tags == ("conv",)
    assert rules.classify("triton_mm").tags == ()


def test_a_user_triton_kernel_that_only_contains_mm_letters_is_no_matmul(rules):
    # `comm`, `summ`: mm inside a word is no template name
    assert rules.classify("triton_comm_kernel").category != "matmul"
    assert rules.classify("triton_summary_stats").category != "matmul"


def test_the_new_category_comes_last_before_other(rules):
    """Plots colour a category by its place in the list: added last, the earlier categories keep their colours."""
    names = rules.category_names
    assert names[-2:] == ["sort and search", "other"]
    assert names.index("cuda graph") == len(names) - 3
