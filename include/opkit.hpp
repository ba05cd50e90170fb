// opkit.hpp — optional header-only C++ wrapper over opkit.h: statuses become
// exceptions carrying the status and opkit_last_error_message(), and device memory,
// streams and the runtime are RAII objects. Nothing here is part of the C ABI.
#ifndef OPKIT_HPP_4E0B2A
#define OPKIT_HPP_4E0B2A

#include "opkit.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace opkit {

class error : public std::runtime_error {
public:
    error(opkit_status status, const std::string& message)
        : std::runtime_error(std::string(opkit_status_string(status)) + ": " + message),
          status_(status) {}
    opkit_status status() const noexcept { return status_; }

private:
    opkit_status status_;
};

// Throws opkit::error for any status but OPKIT_OK.
inline void check(opkit_status s) {
    if (s != OPKIT_OK) throw error(s, opkit_last_error_message());
}

// opkit_init on construction, opkit_shutdown on destruction.
class runtime {
public:
    explicit runtime(const opkit_init_options* options = nullptr) { check(opkit_init(options)); }
    ~runtime() { opkit_shutdown(); }
    runtime(const runtime&) = delete;
    runtime& operator=(const runtime&) = delete;
};

// Device (or host) memory from opkit_malloc, freed with opkit_free.
class buffer {
public:
    buffer() = default;
    buffer(opkit_device device, size_t bytes) : device_(device), bytes_(bytes) {
        check(opkit_malloc(device, bytes, &ptr_));
    }
    ~buffer() { reset(); }
    buffer(buffer&& o) noexcept { *this = std::move(o); }
    buffer& operator=(buffer&& o) noexcept {
        if (this != &o) {
            reset();
            std::swap(ptr_, o.ptr_);
            std::swap(bytes_, o.bytes_);
            device_ = o.device_;
        }
        return *this;
    }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;

    void* data() const noexcept { return ptr_; }
    size_t size() const noexcept { return bytes_; }
    opkit_device device() const noexcept { return device_; }
    void reset() noexcept {
        if (ptr_) opkit_free(device_, ptr_);
        ptr_ = nullptr;
        bytes_ = 0;
    }

private:
    opkit_device device_{OPKIT_DEVICE_CPU, 0};
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

// A stream from opkit_stream_create, destroyed with opkit_stream_destroy.
class stream {
public:
    explicit stream(opkit_device device) : device_(device) { check(opkit_stream_create(device, &s_)); }
    ~stream() { opkit_stream_destroy(device_, s_); }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    opkit_stream get() const noexcept { return s_; }
    void synchronize() const { check(opkit_synchronize(device_, s_)); }

private:
    opkit_device device_;
    opkit_stream s_ = nullptr;
};

}  // namespace opkit

#endif  // OPKIT_HPP_4E0B2A
