// libworldstudio_cuda.so: the CUDA side of core/device.cpp. It links LibTorch's CUDA library, so loading it registers
// LibTorch's CUDA kernels; the engine reaches it only through this C interface, looked up by name. Compiled against
// the CUDA runtime's headers and linked against libtorch_cuda in every build; loaded only where a CUDA driver is.
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <exception>

extern "C" {

// No exception crosses this interface: the caching allocator refuses a device it has not been initialized for (before
// the first allocation), which reads as "nothing allocated yet".

__attribute__((visibility("default"))) int ws_cuda_mem_info(int device, size_t* free_bytes, size_t* total) {
    if (cudaSetDevice(device) != cudaSuccess) return 1;
    return cudaMemGetInfo(free_bytes, total) == cudaSuccess ? 0 : 1;
}

__attribute__((visibility("default"))) long long ws_cuda_peak_allocated(int device) {
    try {
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
        return static_cast<long long>(
            stats.allocated_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)].peak);
    } catch (const std::exception&) {
        return 0;
    }
}

__attribute__((visibility("default"))) void ws_cuda_reset_peak(int device) {
    try {
        c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
    } catch (const std::exception&) {
    }
}

}  // extern "C"
