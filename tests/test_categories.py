"""Kernel classification: a table of real kernel names -> category, and user rule files.

The names come from the fixtures and from ../shared/profiles (H200 nvjet, cuDNN SDPA, PyTorch at::native,
CUTLASS, Ampere sm80_*, nvFuser, TensorRT, cuDNN convolutions, cuDF/thrust), copied here so that the test
runs without ../shared; WELL_KNOWN are public names of libraries none of those profiles used.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from nsys_analytics.capabilities.categories import OTHER, builtin_rules_path, load_rules
from nsys_analytics.cli.main import cli
from nsys_analytics.core.errors import UsageError

from .conftest import PROFILES
from .test_category_libraries import LIBRARY_NAMES

REAL_NAMES = [
    ('<unnamed>::nvfuser_none_f0_c0_r0_g0(<unnamed>::Tensor<<unnamed>::__half, (int)3, (int)3>, <unnamed>::Tensor<<unnamed>::__half, (int)3, (int)3>, <unnamed>::TensorMap, <unnamed>::TensorMap, <unnamed>::TensorMap, <unnamed>::Tensor<<unnamed>::__half, (int)2, (int)2>)', 'matmul'),
    ('void probe_GPU2<128, 4>(int*, int*, int*, int*, int*, int*, int*, int*, int, int, int, int, int*, int*, int*, int*, int, int*, int, int*, int, int*, int, int*, int, int, int, int, int, int*, int*, int*, int*, int*, int*, int, short*)', 'sort and search'),
    ('void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__unique::UniqueAgent<thrust::counting_iterator<int, thrust::use_default, thrust::use_default, thrust::use_default>, thrust::detail::normal_iterator<thrust::device_ptr<int> >, (anonymous namespace)::permuted_row_equality_comparator<false>, int, int*>, thrust::counting_iterator<int, thrust::use_default, thrust::use_default, thrust::use_default>, thrust::detail::normal_iterator<thrust::device_ptr<int> >, (anonymous namespace)::permuted_row_equality_comparator<false>, int*, int, cub::ScanTileState<int, true>, unsigned long>(thrust::counting_iterator<int, thrust::use_default, thrust::use_default, thrust::use_default>, thrust::detail::normal_iterator<thrust::device_ptr<int> >, (anonymous namespace)::permuted_row_equality_comparator<false>, int*, int, cub::ScanTileState<int, true>, unsigned long)', 'sort and search'),
    ('compute_gemm_pointers(float2 **, const float2 *, int, const float2 *, int, const float2 *, int, int)', 'matmul'),
    ('void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)', 'matmul'),
    ('void gemmSN_NN_kernel<float, (int)128, (int)2, (int)4, (int)8, (int)4, (int)4, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>>(cublasGemmSmallNParams<T8, T9, T1>)', 'matmul'),
    ('cudnn::gemm::computeOffsetsKernel(cudnn::gemm::ComputeOffsetsParams)', 'matmul'),
    ('sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize256x64x32_stage3_warpsize4x1x1_g1_tensor16x8x16_t1r3s3_execute_kernel_trt', 'matmul'),
    ('volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1', 'matmul'),
    ('cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_cga1x1x1_kernel0_0', 'attention'),
    ('void cudnn::fusion::compute_dot_do_o_specialized<(bool)1, (int)64>(const void *, const void *, void *, void *, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, float, const void *, const void *, const void *, const void *, const void *, bool, const void *, void *, const void *, int, int, int, int, int, int, int, int, int)', 'attention'),
    ('void cudnn::fusion::convert_dq_to_16bits<(bool)1>(const void *, void *, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, const float *, const float *, const float *, float *, const void *, void *, void *, bool, bool)', 'attention'),
    ('nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT', 'matmul'),
    ('nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT', 'matmul'),
    ('nvjet_sm90_tst_96x64_64x10_1x2_h_bz_TNN', 'matmul'),
    ('sm50_xmma_pooling_coalescedC_NHWC_kMAX_3_False_execute_kernel_trt', 'reduction'),
    ('void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4, (int)4>>(T3)', 'reduction'),
    ('void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__scan::ScanAgent<thrust::detail::normal_iterator<thrust::device_ptr<int> >, thrust::detail::normal_iterator<thrust::device_ptr<int> >, thrust::plus<int>, int, int, thrust::detail::integral_constant<bool, true> >, thrust::detail::normal_iterator<thrust::device_ptr<int> >, thrust::detail::normal_iterator<thrust::device_ptr<int> >, thrust::plus<int>, int, cub::ScanTileState<int, true>, thrust::cuda_cub::__scan::DoNothing<int> >(thrust::detail::normal_iterator<thrust::device_ptr<int> >, thrust::detail::normal_iterator<thrust::device_ptr<int> >, thrust::plus<int>, int, cub::ScanTileState<int, true>, thrust::cuda_cub::__scan::DoNothing<int>)', 'reduction'),
    ('sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas', 'matmul'),
    ('sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas', 'matmul'),
    ('sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas', 'matmul'),
    ('void <unnamed>::elementwise_kernel_with_index<int, at::native::arange_cuda_out(const c10::Scalar &, const c10::Scalar &, const c10::Scalar &, at::Tensor &)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(long) (instance 1)]>(T1, T2, function_traits<T2>::result_type *)', 'elementwise'),
    ('void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<c10::Half>, std::array<char *, (unsigned long)3>>(int, T2, T3)', 'elementwise'),
    ('void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__parallel_for::ParallelForAgent<thrust::cuda_cub::for_each_f<thrust::counting_iterator<int, thrust::use_default, thrust::use_default, thrust::use_default>, thrust::detail::wrapped_function<cudf::groupby::detail::reduce_functor<(cudf::aggregation::Kind)0>::operator()<double>(cudf::column_view const&, int, thrust::device_vector<int, rmm::mr::thrust_allocator<int> > const&, rmm::mr::device_memory_resource*, CUstream_st*)::{lambda(auto:1)#1}, void> >, int>, thrust::detail::wrapped_function<cudf::groupby::detail::reduce_functor<(cudf::aggregation::Kind)0>::operator()<double>(cudf::column_view const&, int, thrust::device_vector<int, rmm::mr::thrust_allocator<int> > const&, rmm::mr::device_memory_resource*, CUstream_st*)::{lambda(auto:1)#1}, void>, int>(thrust::detail::wrapped_function<cudf::groupby::detail::reduce_functor<(cudf::aggregation::Kind)0>::operator()<double>(cudf::column_view const&, int, thrust::device_vector<int, rmm::mr::thrust_allocator<int> > const&, rmm::mr::device_memory_resource*, CUstream_st*)::{lambda(auto:1)#1}, void>, int)', 'elementwise'),
    ('void <unnamed>::softmax_warp_backward<float, float, float, (int)8, (bool)0, (bool)0>(T2 *, const T1 *, const T1 *, int, int, int, const bool *)', 'softmax'),
    ('void <unnamed>::softmax_warp_forward<float, float, float, (int)8, (bool)0, (bool)0>(T2 *, const T1 *, int, int, int, const bool *, int, bool)', 'softmax'),
    ('void at::native::<unnamed>::cunn_SoftMaxForwardSmem<(int)4, float, float, float, at::native::<unnamed>::LogSoftMaxForwardEpilogue, long>(T4 *, const T2 *, T6)', 'loss'),
    ('void CUTENSOR_NAMESPACE::permutationKernelPLC3<CUTENSOR_NAMESPACE::VectorWrite2DTensorView<(unsigned char)0, (unsigned char)1, (bool)0, (unsigned int)4, float, __half, CUTENSOR_NAMESPACE::GeneralUnarySmall<float>>, CUTENSOR_NAMESPACE::VectorRead2DTensorView<(unsigned char)1, (unsigned char)0, (bool)0, (unsigned int)4, float, __half, CUTENSOR_NAMESPACE::GeneralUnarySmall<float>>, CUTENSOR_NAMESPACE::ThreadLevelElementwise<CUTENSOR_NAMESPACE::ElementwiseConfig2DSmallMode0<CUTENSOR_NAMESPACE::GeneralUnarySmall<float>, CUTENSOR_NAMESPACE::GeneralBinary<float>, (int)2, (int)4, (int)512, (int)128, (signed char)4, (bool)0, (bool)0, (bool)0, (bool)0, (bool)0>, float>, CUTENSOR_NAMESPACE::ElementwiseRuntimePLC3<__half, float, __half, float>::Params>(T4)', 'memory'),
    ('void at::native::vectorized_elementwise_kernel<(int)2, at::native::FillFunctor<long>, std::array<char *, (unsigned long)1>>(int, T2, T3)', 'memory'),
    ('void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__parallel_for::ParallelForAgent<thrust::cuda_cub::__uninitialized_fill::functor<thrust::device_ptr<int>, int>, unsigned long>, thrust::cuda_cub::__uninitialized_fill::functor<thrust::device_ptr<int>, int>, unsigned long>(thrust::cuda_cub::__uninitialized_fill::functor<thrust::device_ptr<int>, int>, unsigned long)', 'memory'),
    ('void at::native::<unnamed>::GammaBetaBackwardCUDAKernelTemplate<float, float, (unsigned int)32, (unsigned int)32, (unsigned int)256, (bool)0, (bool)1, (bool)0>(long, long, const T1 *, const T1 *, const T2 *, const T2 *, T1 *, T1 *)', 'normalization'),
    ('void at::native::<unnamed>::layer_norm_grad_input_kernel_vectorized<float, float, (bool)0>(const T1 *, const T1 *, const T2 *, const T2 *, const T1 *, T1 *, int)', 'normalization'),
    ('void at::native::<unnamed>::vectorized_layer_norm_kernel<float, float, (bool)0>(int, T2, const T1 *, const T1 *, const T1 *, T2 *, T2 *, T1 *)', 'normalization'),
    ('void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, (int)4, void at::native::templates::cuda::normal_and_transform<c10::Half, float, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 3)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T3, T4)::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::<unnamed>::distribution_nullary_kernel<c10::Half, float, float4, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_and_transform<c10::Half, float, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 3)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T3, T4)::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 3)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T4, const T5 &, T6)::[lambda(int, float) (instance 1)]>(int, at::PhiloxCudaState, T3, T4)', 'random'),
    ('void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, (int)4, void at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T3, T4)::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::<unnamed>::distribution_nullary_kernel<float, float, float4, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T3, T4)::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T4, const T5 &, T6)::[lambda(int, float) (instance 1)]>(long, at::PhiloxCudaState, T3, T4)', 'random'),
    ('void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<unsigned int, (int)4, void at::native::templates::cuda::random_from_to_kernel<at::CUDAGeneratorImpl *>(at::TensorIteratorBase &, unsigned long, long, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::<unnamed>::distribution_nullary_kernel<long, unsigned int, uint4, at::CUDAGeneratorImpl *, void at::native::templates::cuda::random_from_to_kernel<at::CUDAGeneratorImpl *>(at::TensorIteratorBase &, unsigned long, long, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::templates::cuda::random_from_to_kernel<at::CUDAGeneratorImpl *>(at::TensorIteratorBase &, unsigned long, long, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(unsigned int) (instance 1)]>(at::TensorIteratorBase &, T4, const T5 &, T6)::[lambda(int, unsigned int) (instance 1)]>(long, at::PhiloxCudaState, T3, T4)', 'random'),
    ('void at::native::<unnamed>::embedding_backward_feature_kernel<float, float, long>(const T3 *, const T1 *, T1 *, int, long, int)', 'embedding'),
    ('void at::native::<unnamed>::multi_tensor_apply_kernel<at::native::<unnamed>::FusedOptimizerTensorListMetadata<(int)4>, at::native::<unnamed>::FusedAdamMathFunctor<float, (int)4, (at::native::ADAM_MODE)1, (bool)0>, const float *, double, double, double, double, double, bool, const float *, const float *>(T1, T2, T3...)', 'optimizer'),
    ('void at::native::<unnamed>::multi_tensor_apply_kernel<at::native::<unnamed>::TensorListMetadata<(int)2>, at::native::<unnamed>::TernaryOpScalarFunctor<float, (int)2, (int)2, (int)0>, at::native::LerpFunctor<float>, float>(T1, T2, T3...)', 'optimizer'),
    ('void at::native::<unnamed>::multi_tensor_apply_kernel<at::native::<unnamed>::TensorListScalarListMetadata<float, (int)3>, at::native::<unnamed>::PointwiseOpScalarListFunctor<float, (int)3, (int)3, (int)0>, std::divides<float>>(T1, T2, T3...)', 'optimizer'),
    ('void at::native::<unnamed>::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(T1 *, const T1 *, const T2 *, const T1 *, const T1 *, bool, int, int, long, long)', 'loss'),
    ('void at::native::<unnamed>::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(T1 *, T1 *, const T1 *, const T3 *, const T1 *, bool, long, long, long, long)', 'loss'),
    ('void cublasLt::splitKreduce_kernel<(int)32, (int)16, int, float, __nv_bfloat16, float, __nv_bfloat16, (bool)0, float, __nv_bfloat16, __nv_bfloat16, (bool)1, (bool)0, (bool)0, (bool)0>(cublasLt::cublasSplitKParams<T6>, const T4 *, const T10 *, T9 *, T5 *, const T6 *, const T6 *, const T11 *, const T4 *, T11 *, void *, long, T6 *, int *, T6 *, T6 *, const T6 *, const T6 *, const T6 *, const T6 *, const T6 *)', 'matmul'),
    ('void cublasLt::splitKreduce_kernel<(int)32, (int)16, int, float, float, float, float, (bool)0, float, float, float, (bool)1, (bool)0, (bool)0, (bool)0>(cublasLt::cublasSplitKParams<T6>, const T4 *, const T10 *, T9 *, T5 *, const T6 *, const T6 *, const T11 *, const T4 *, T11 *, void *, long, T6 *, int *, T6 *, T6 *, const T6 *, const T6 *, const T6 *, const T6 *, const T6 *)', 'matmul'),
    ('void cudnn::winograd::generateWinogradTilesKernel<(int)0, float, float>(cudnn::winograd::GenerateWinogradTilesParams<T2, T3>)', 'convolution'),
    ('void fft2d_c2r_32x32<float, (bool)0, (bool)0, (unsigned int)0, (bool)0, (bool)0>(T1 *, const float2 *, int, int, int, int, int, int, int, int, int, float, float, cudnn::reduced_divisor, bool, T1 *, T1 *, int2, int, int)', 'convolution'),
    ('void im2col4d_kernel<float, int>(im2col4d_params, cudnnConvolutionStruct, cudnnTensor4dStruct, const T1 *, T1 *, int)', 'convolution'),
    ('void gemv2N_kernel<int, int, float2, float2, float2, (int)128, (int)8, (int)4, (int)4, (int)1, cublasGemvParams<cublasGemvTensorStridedBatched<const float2>, cublasGemvTensorStridedBatched<float2>, float2>>(T11)', 'matmul'),
    ('void gemv2T_kernel_val<int, int, float2, float2, float2, (int)128, (int)16, (int)2, (int)2, (bool)0, cublasGemvParams<cublasGemvTensorBatched<const float2>, cublasGemvTensorBatched<float2>, float2>>(T11, T5, T5)', 'matmul'),
    ('void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::native::<unnamed>::masked_fill_kernel(at::TensorIterator &, const c10::Scalar &)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(float, bool) (instance 1)]>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)', 'elementwise'),
    ('void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)', 'memory'),
    ('void at::native::<unnamed>::CatArrayBatchedCopy<at::native::<unnamed>::OpaqueType<(unsigned int)2>, unsigned int, (int)4, (int)64, (int)64>(T1 *, at::native::<unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, at::native::<unnamed>::TensorSizeStride<T2, (unsigned int)4>, int, T2)', 'memory'),
    ('void genericReformat::copyVectorizedKernel<double, __half, __half, (bool)1, (bool)0, (int)1>(unsigned int, const void *, genericReformat::ArrayN<T6>, genericReformat::ArrayNWithReducedDivisors<T6>, genericReformat::ArrayN<T6>, int, const float *, void *, genericReformat::ArrayN<T6>, genericReformat::ArrayNWithReducedDivisors<T6>, genericReformat::ArrayN<T6>, int, const float *)', 'memory'),
    ('trt_ampere_h16816gemm_64x64_ldg8_relu_stages_64x5_tn_v1', 'matmul'),
    ('void cudnn::detail::explicit_convolve_sgemm<float, int, (int)1024, (int)5, (int)5, (int)3, (int)3, (int)3, (int)0, (bool)1>(int, int, int, const T1 *, int, const T1 *, int, T1 *, kernel_conv_params, int, int, float, float, int, T1 *, T1 *)', 'matmul'),
    ('volta_scudnn_128x32_relu_interior_nn_v1', 'matmul'),
    ('void at::native::triu_tril_kernel<bool, int, (bool)1, (int)8, (bool)0>(at::cuda::detail::TensorInfo<T1, T2>, at::cuda::detail::TensorInfo<const T1, T2>, long, long, T2)', 'elementwise'),
    ('void at::native::vectorized_gather_kernel<(int)16, long>(char *, char *, T2 *, int, long, long, long, long, bool)', 'embedding'),
    ('void cub::DeviceReduceSingleTileKernel<cub::DeviceReducePolicy<long, long, int, thrust::plus<long> >::Policy600, thrust::cuda_cub::transform_input_iterator_t<long, int const*, cudf::detail::bounds_checker<int> >, long*, int, thrust::plus<long>, long>(thrust::cuda_cub::transform_input_iterator_t<long, int const*, cudf::detail::bounds_checker<int> >, long*, int, thrust::plus<long>, long)', 'reduction'),
    ('void at::native::vectorized_elementwise_kernel<(int)8, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)', 'memory'),
    ('void at::native::vectorized_elementwise_kernel<(int)4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase &, at::native::GeluType)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)', 'elementwise'),
    ('kernVectorAdd(const float *, const float *, float *, int)', 'elementwise'),
    ('void kernel_v_v<double, double, int, Div>(int, double*, double*, int*)', 'other'),
    ('cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0', 'attention'),
    ('nvjet_sm90_tst_128x64_64x8_1x2_h_bz_splitK_NNT', 'matmul'),
    ('void cudnn::winograd_nonfused::winogradForwardOutput4x4<float, float>(cudnn::winograd_nonfused::WinogradOutputParams<T1, T2>)', 'convolution'),
    ('void flip_filter<float, float>(T2 *, const T1 *, int, int, int, int)', 'convolution'),
    ('void at::native::<unnamed>::cunn_SoftMaxBackwardSmem<(int)4, float, float, float, at::native::<unnamed>::LogSoftMaxBackwardEpilogue>(T2 *, const T4 *, const T4 *, long)', 'loss'),
    ('void at::native::<unnamed>::CatArrayBatchedCopy_vectorized<at::native::<unnamed>::OpaqueType<(unsigned int)2>, unsigned int, (int)3, (int)128, (int)1, (int)16, (int)8>(char *, at::native::<unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, at::native::<unnamed>::TensorSizeStride<T2, (unsigned int)4>, int, T2)', 'memory'),
    ('void at::native::reduce_kernel<(int)128, (int)4, at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator ()(at::TensorIterator &)::[lambda(float, float) (instance 1)]>, unsigned int, c10::BFloat16, (int)4, (int)8>>(T3)', 'reduction'),
]

WELL_KNOWN = [
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)", "communication"),
    ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)64, (int)128, (int)128, (int)4, (bool)0, (bool)0, cutlass::bfloat16_t, Flash_kernel_traits<(int)64, (int)128, (int)128, (int)4, cutlass::bfloat16_t>>, (bool)0, (bool)1, (bool)0, (bool)0, (bool)1, (bool)1, (bool)0, (bool)0>(Flash_fwd_params)", "attention"),
    ("fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, (bool)1, (int)64, (int)64, (int)64, (bool)1, (bool)1>::Params)", "attention"),
    ("void vllm::paged_attention_v1_kernel<unsigned short, unsigned short, (int)128, (int)16, (int)128, (vllm::Fp8KVCacheDataType)0, (bool)0>(T1 *, const T1 *, const T2 *, const T2 *, int, float, const int *, const int *, int, const float *, int, int, int, const float *, const float *)", "attention"),
    ("triton_tem_fused_flex_attention_0", "attention"),
    ("triton_tem_fused_mm_0", "matmul"),
    ("triton_tem_fused_addmm_relu_3", "matmul"),
    ("triton_tem_fused_bmm_5", "matmul"),
    ("triton_poi_fused__to_copy_add_mul_0", "elementwise"),
    ("triton_red_fused_native_layer_norm_0", "normalization"),
    ("triton_per_fused__softmax_1", "softmax"),
    ("triton_red_fused_sum_2", "reduction"),
    ("triton_poi_fused_native_dropout_3", "random"),
    ("triton_red_fused__log_softmax_nll_loss_forward_0", "loss"),
    ("triton_per_fused__log_softmax_2", "loss"),  # the loss's log-softmax, not attention's softmax
    # PyTorch's log_softmax over rows of up to 1024: softmax_warp_* with is_log_softmax (5th argument) 1
    ("void <unnamed>::softmax_warp_forward<float, float, float, (int)10, (bool)1, (bool)0>(T2 *, const T1 *, int, int, "
     "int, const bool *, int, bool)", "loss"),
    ("void <unnamed>::softmax_warp_backward<c10::BFloat16, c10::BFloat16, float, (int)9, (bool)1, (bool)0>(T2 *, "
     "const T1 *, const T1 *, int, int, int, const bool *)", "loss"),
    ("void <unnamed>::softmax_warp_forward<float, float, float, (int)8, (bool)0, (bool)1>(T2 *, const T1 *, int, int, "
     "int, const bool *, int, bool)", "softmax"),  # a masked softmax: is_masked 1, not log
    ("void at::native::<unnamed>::cunn_SoftMaxForward<(int)4, float, float, float, "
     "at::native::<unnamed>::SoftMaxForwardEpilogue>(T4 *, const T2 *, long)", "softmax"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "matmul"),
    ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, cutlass::gemm::collective::CollectiveMma<>>>(T1::Params)", "matmul"),
    ("ampere_sgemm_128x64_tn", "matmul"),
    ("volta_h884gemm_64x64_ldg8_nn", "matmul"),
    ("void Marlin<(int)256, (int)1, (int)8, (int)8, (int)4, (int)8>(const int4 *, const int4 *, int4 *, const int4 *, int, int, int, int *, int)", "matmul"),
    ("sm80_xmma_dgrad_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nchw_tilesize64x64x64_stage4_warpsize2x2x1_g1_tensor16x8x16_kernel_cudnn", "matmul"),
    ("nvfuser_pointwise_f0_c1_r0_g0", "elementwise"),
    ("nvfuser_inner_persistent_f0_c1_r0_g1", "reduction"),
    ("void at::native::batch_norm_collect_statistics_kernel<at::native::InvStd, float, float, float, int>(at::GenericPackedTensorAccessor<const float, (unsigned long)3, at::RestrictPtrTraits, int>, float, float, at::GenericPackedTensorAccessor<float, (unsigned long)1, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<float, (unsigned long)1, at::RestrictPtrTraits, int>)", "normalization"),
    ("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, (int)512, (bool)1, (int)1>(cudnnTensorStruct, const T1 *, cudnnTensorStruct, T1 *, const T2 *, const T2 *, T2, T2, T2 *, T2 *, T2 *, T2 *, T2, T2)", "normalization"),
    ("void flashinfer::norm::GemmaRMSNormKernel<(unsigned int)8, __nv_bfloat16>(T2 *, T2 *, T2 *, unsigned int, unsigned int, unsigned int, float, float)", "normalization"),
    ("void at::native::<unnamed>::fused_dropout_kernel_vec<float, float, unsigned int, (int)1, (int)4, bool>(at::cuda::detail::TensorInfo<const T1, T3>, at::cuda::detail::TensorInfo<T1, T3>, at::cuda::detail::TensorInfo<T6, T3>, T3, T2, at::PhiloxCudaState)", "random"),
    ("void at::native::index_elementwise_kernel<(int)128, (int)4, void at::native::gpu_index_kernel<void at::native::index_kernel_impl<at::native::OpaqueType<(int)4>>(at::TensorIteratorBase &, c10::ArrayRef<long>, c10::ArrayRef<long>)::[lambda(char *, const char *, long) (instance 1)]>(at::TensorIteratorBase &, c10::ArrayRef<long>, c10::ArrayRef<long>, const T1 &, bool)::[lambda(int) (instance 1)]>(long, T3)", "embedding"),
    ("void at::native::<unnamed>::max_pool_forward_nchw<float>(int, const T1 *, long, long, long, int, int, int, int, int, int, int, int, int, int, T1 *, long *)", "reduction"),
    ("void at::native::conv_depthwise2d_forward_kernel<(int)0, float, int>(at::GenericPackedTensorAccessor<const T2, (unsigned long)4, at::DefaultPtrTraits, T3>, at::GenericPackedTensorAccessor<T2, (unsigned long)4, at::DefaultPtrTraits, T3>, bool, T3, T3, T3, T3, T3, T3, T3, T3, T3, T3, T3, T3)", "convolution"),
    ("[CUDA graph 12]", "cuda graph"),  # graph_executions.name: a graph traced whole
    # compile_autotune (torch.compile max-autotune): see tests/test_category_coverage.py
    ("triton_tem_fused_convolution_2", "matmul"),
    ("triton_poi_fused_convolution_0", "memory"),
    (("void at::native::<unnamed>::multi_tensor_apply_kernel<at::native::<unnamed>::TensorListMetadata<(int)2>, "
     "at::native::<unnamed>::UnaryOpFunctor<c10::BFloat16, (int)2, (int)1, (int)1>, at::native::Copy<c10::BFloat16, "
     "c10::BFloat16>>(T1, T2, T3...)"), "memory"),
]

ALL_NAMES = REAL_NAMES + WELL_KNOWN + [(name, category) for name, category, _ in LIBRARY_NAMES]


@pytest.fixture(scope="module")
def rules():
    return load_rules()


@pytest.mark.parametrize("name,category", ALL_NAMES, ids=[f"{c}:{n[:60]}" for n, c in ALL_NAMES])
def test_real_name_category(rules, name, category):
    assert rules.classify(name).category == category


def test_every_builtin_rule_is_exercised(rules):
    used = {rules.classify(n).rule for n, _ in ALL_NAMES}
    assert {r.name for r in rules.rules} - used == set()


def test_conv_tag(rules):
    assert rules.classify("volta_scudnn_128x32_relu_interior_nn_v1").tags == ("conv",)
    assert rules.classify("nvjet_sm90_tst_96x64_64x10_1x2_h_bz_TNN").tags == ()


def test_no_rule_means_other(rules):
    match = rules.classify("void kernel_v_v<double, double, int, Div>(int, double*, double*, int*)")
    assert (match.category, match.rule) == (OTHER, None)
    assert rules.classify(None).category == OTHER


def test_every_category_has_a_group_and_is_documented(rules):
    from .conftest import ROOT

    doc = (ROOT / "docs" / "categories.md").read_text()
    for c in rules.categories:
        assert c.group in ("matmul", "non-matmul")
        assert f"| {c.name} |" in doc, f"docs/categories.md does not describe {c.name}"


# -- user rules ------------------------------------------------------------------------------------------

def write(tmp_path, text: str, name: str = "my.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_user_rule_is_tried_first(tmp_path):
    path = write(tmp_path, """
[[rule]]
name = "my-softmax-is-attention"
category = "attention"
pattern = 'softmax_warp'
""")
    rules = load_rules(path)
    assert rules.rules[0].name == "my-softmax-is-attention" and rules.rules[0].source == str(path)
    assert rules.classify("void <unnamed>::softmax_warp_forward<float>(T2 *)").category == "attention"
    assert rules.classify("void at::native::cunn_SoftMaxForwardSmem<float>()").category == "softmax"


def test_user_rule_with_builtin_name_replaces_it(tmp_path):
    path = write(tmp_path, """
[[rule]]
name = "nvjet"
category = "other"
pattern = '^nvjet_hsh'
""")
    rules = load_rules(path)
    assert [r.name for r in rules.rules].count("nvjet") == 1
    assert rules.classify("nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT").category == "other"
    # the built-in nvjet rule is gone: sm90 nvjet names now match nothing (no 'gemm' in them)
    assert rules.classify("nvjet_sm90_tst_96x64_64x10_1x2_h_bz_TNN").rule is None


def test_new_category_and_group_change(tmp_path):
    path = write(tmp_path, """
[[category]]
name = "quantize"
description = "fp8 casts"

[[category]]
name = "attention"
group = "matmul"

[[rule]]
name = "fp8"
category = "quantize"
pattern = 'fp8_cast'
""")
    rules = load_rules(path)
    names = rules.category_names
    assert names.index("quantize") == names.index("other") - 1
    assert rules.group_of("attention") == "matmul"
    assert rules.category("attention").description  # kept from the built-in file
    assert rules.classify("void fp8_cast_kernel()").category == "quantize"


def test_disable_and_replace(tmp_path):
    disabled = load_rules(write(tmp_path, 'disable = ["softmax"]\n'))
    assert disabled.classify("void <unnamed>::softmax_warp_forward<float>(T2 *)").rule is None
    replaced = load_rules(write(tmp_path, """replace = true
[[rule]]
name = "only"
category = "matmul"
pattern = 'x'
""", "replace.toml"))
    assert [r.name for r in replaced.rules] == ["only"]


def test_later_file_wins(tmp_path):
    a = write(tmp_path, '[[rule]]\nname = "r"\ncategory = "matmul"\npattern = "k"\n', "a.toml")
    b = write(tmp_path, '[[rule]]\nname = "r"\ncategory = "softmax"\npattern = "k"\n', "b.toml")
    assert load_rules([a, b]).classify("k").category == "softmax"
    assert load_rules([b, a]).classify("k").category == "matmul"


@pytest.mark.parametrize("text,words", [
    ("[[rule]\nname = 'x'", ["not valid TOML", "line 1"]),
    ('[[rule]]\nname = "x"\ncategory = "nope"\npattern = "y"\n', ["unknown category 'nope'", "[[category]]"]),
    ('[[rule]]\nname = "x"\ncategory = "matmul"\npattern = "("\n', ["rule 'x'", "regular expression"]),
    ('[[rule]]\nname = "x"\ncategory = "matmul"\n', ["rule 'x'", "pattern"]),
    ('[[rule]]\nname = "x"\ncategory = "matmul"\npattern = "y"\ncolour = 1\n', ["unknown key 'colour'"]),
    ('[[category]]\nname = "x"\ngroup = "gemm"\n', ["group must be one of"]),
    ('disable = ["no-such-rule"]\n', ["no-such-rule"]),
])
def test_bad_rules_file_is_a_usage_error(tmp_path, text, words):
    path = write(tmp_path, text)
    with pytest.raises(UsageError) as e:
        load_rules(path)
    message = str(e.value)
    assert str(path) in message and "\n" not in message
    for w in words:
        assert w in message


def test_bad_rules_file_on_the_command_line_is_one_line(tmp_path):
    path = write(tmp_path, "[[rule]\n")
    result = CliRunner().invoke(cli, ["classify", str(PROFILES / "gpt_train.sqlite"), "--rules", str(path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "not valid TOML" in lines[0]


def test_missing_rules_file(tmp_path):
    with pytest.raises(UsageError, match="no such rules file"):
        load_rules(tmp_path / "nope.toml")


def test_builtin_file_ships_with_the_package():
    assert builtin_rules_path().is_file()
