// The residency map: which host regions live in which device buffers.
//
// Regions are byte ranges of host memory [host, host + bytes), keyed by their first
// byte. An acquired FLAME object is one region covering its whole base buffer, so
// every view of it (whatever its offsets and strides) lies inside and becomes an
// element offset into the region's buffer. Lookups go by address, not by pointer
// identity, so a view built by hand over an acquired object's memory finds the
// object's region too.
#include "opencl/host.hpp"

#include <algorithm>
#include <atomic>

#include "opencl/base_extent.hpp"

namespace flamex::opencl {

namespace {

std::atomic<std::uint64_t> uploads{0}, downloads{0}, uploaded_bytes{0}, downloaded_bytes{0}, element_reads{0};

struct Span {
    std::uintptr_t lo = 0, hi = 0; // bytes [lo, hi)
    std::uintptr_t first = 0;      // address of element (0, 0)
};

// The bytes a non-empty view touches, from its lowest to its highest element.
Span span_of(Obj A)
{
    const dim_t last_i = (A.length() - 1) * A.row_stride(), last_j = (A.width() - 1) * A.col_stride();
    const dim_t low = std::min<dim_t>(0, last_i) + std::min<dim_t>(0, last_j);
    const dim_t high = std::max<dim_t>(0, last_i) + std::max<dim_t>(0, last_j);
    Span s;
    s.first = reinterpret_cast<std::uintptr_t>(A.buffer());
    s.lo = s.first + static_cast<std::uintptr_t>(low * static_cast<dim_t>(sizeof(double)));
    s.hi = s.first + static_cast<std::uintptr_t>((high + 1) * static_cast<dim_t>(sizeof(double)));
    return s;
}

// The region an acquire of A makes resident: the owning object's whole buffer, or
// what the view spans when it has no owner. Empty (lo == hi) when there is nothing.
Span acquire_span(Obj A)
{
    const std::int64_t extent = owned_extent(A);
    if (extent < 0) return A.empty() ? Span{} : span_of(A);
    Span s;
    s.first = s.lo = reinterpret_cast<std::uintptr_t>(A.base_buffer());
    s.hi = s.lo + static_cast<std::uintptr_t>(extent) * sizeof(double);
    return s;
}

cl_long element_offset(std::uintptr_t first, std::uintptr_t base)
{
    return static_cast<cl_long>((first - base) / sizeof(double));
}

DeviceView make_view(const cl::Buffer& buffer, cl_long offset, Obj A)
{
    DeviceView v;
    v.buffer = buffer;
    v.offset = offset;
    v.rs = A.row_stride();
    v.cs = A.col_stride();
    v.inc = A.vector_inc();
    return v;
}

} // namespace

TransferStats transfer_stats()
{
    return {uploads.load(), downloads.load(), uploaded_bytes.load(), downloaded_bytes.load(), element_reads.load()};
}

DeviceMemory::DeviceMemory(std::shared_ptr<Context> context) : context_(std::move(context))
{
    dummy_ = context_->allocate(sizeof(double));
}

DeviceMemory::~DeviceMemory()
{
    for (auto& [host, region] : regions_) {
        try {
            context_->read(region.buffer, 0, region.bytes, reinterpret_cast<void*>(host));
        } catch (...) { // nothing left to report to
        }
    }
}

void DeviceMemory::throw_pending() const
{
    if (pending_error_.empty()) return;
    std::string message;
    message.swap(pending_error_);
    throw Error("opencl: an earlier release failed to download its data: " + message);
}

const DeviceMemory::Region* DeviceMemory::find(std::uintptr_t lo, std::uintptr_t hi) const
{
    auto after = regions_.upper_bound(lo);
    if (after != regions_.begin()) {
        const Region& r = std::prev(after)->second;
        if (lo < r.host + r.bytes) {
            if (hi <= r.host + r.bytes) return &r;
            throw Error("opencl: a view overlaps a resident object without lying inside it (it runs past its end)");
        }
    }
    if (after != regions_.end() && after->second.host < hi)
        throw Error("opencl: a view overlaps a resident object without lying inside it");
    return nullptr;
}

void DeviceMemory::acquire(Obj A)
{
    throw_pending();
    const Span s = acquire_span(A);
    if (s.lo == s.hi) return;
    if (Region* r = find(s.lo, s.hi)) {
        ++r->holds;
        return;
    }
    Region r;
    r.host = s.lo;
    r.bytes = s.hi - s.lo;
    r.buffer = context_->allocate(r.bytes);
    context_->write(r.buffer, 0, r.bytes, reinterpret_cast<const void*>(r.host));
    ++uploads;
    uploaded_bytes += r.bytes;
    r.holds = 1;
    regions_.emplace(r.host, std::move(r));
}

void DeviceMemory::release(Obj A) noexcept
{
    std::uintptr_t key = 0;
    try {
        const Span s = acquire_span(A);
        if (s.lo == s.hi) return;
        Region* found = find(s.lo, s.hi);
        if (found == nullptr) return; // never acquired: nothing to do
        key = found->host;
        Region& region = *found;
        if (--region.holds > 0) return;
        context_->read(region.buffer, 0, region.bytes, reinterpret_cast<void*>(region.host));
        ++downloads;
        downloaded_bytes += region.bytes;
        regions_.erase(key);
    } catch (const std::exception& e) {
        pending_error_ = e.what();
        if (key != 0) regions_.erase(key);
    } catch (...) {
        pending_error_ = "unknown error";
        if (key != 0) regions_.erase(key);
    }
}

bool DeviceMemory::resident(Obj A) const
{
    if (A.empty()) return false;
    const Span s = span_of(A);
    return find(s.lo, s.hi) != nullptr;
}

double DeviceMemory::element(Obj A, dim_t i, dim_t j) const
{
    throw_pending();
    if (i < 0 || j < 0 || i >= A.length() || j >= A.width())
        throw Error("opencl: element (" + std::to_string(i) + "," + std::to_string(j) + ") lies outside a " +
                    std::to_string(A.length()) + "x" + std::to_string(A.width()) + " view");
    double* at = A.buffer() + i * A.row_stride() + j * A.col_stride();
    const auto address = reinterpret_cast<std::uintptr_t>(at);
    const Region* r = find(address, address + sizeof(double));
    if (r == nullptr) return *at;
    double value = 0.0;
    context_->read(r->buffer, address - r->host, sizeof value, &value);
    ++element_reads;
    return value;
}

DeviceMemory::Binding DeviceMemory::bind(std::initializer_list<Operand> operands)
{
    throw_pending();
    Binding b;
    b.context_ = context_.get();
    b.views_.resize(operands.size());

    struct Temp {
        std::size_t operand;
        Span span;
        bool written;
    };
    std::vector<Temp> temps;
    std::size_t k = 0;
    for (const Operand& op : operands) {
        DeviceView& v = b.views_[k];
        if (op.view.empty()) {
            v = make_view(dummy_, 0, op.view);
        } else {
            const Span s = span_of(op.view);
            if (const Region* r = find(s.lo, s.hi))
                v = make_view(r->buffer, element_offset(s.first, r->host), op.view);
            else
                temps.push_back({k, s, op.access == Access::ReadWrite});
        }
        ++k;
    }
    if (temps.empty()) return b;

    // Operands that overlap in host memory share one temporary buffer, so that an
    // operation reading and writing parts of one object sees its own writes.
    std::sort(temps.begin(), temps.end(), [](const Temp& x, const Temp& y) { return x.span.lo < y.span.lo; });
    std::size_t start = 0;
    while (start < temps.size()) {
        std::uintptr_t lo = temps[start].span.lo, hi = temps[start].span.hi;
        std::size_t end = start + 1;
        while (end < temps.size() && temps[end].span.lo < hi) hi = std::max(hi, temps[end++].span.hi);
        const std::uint64_t bytes = hi - lo;
        cl::Buffer buffer = context_->allocate(bytes);
        context_->write(buffer, 0, bytes, reinterpret_cast<const void*>(lo));
        ++uploads;
        uploaded_bytes += bytes;
        for (std::size_t t = start; t < end; ++t) {
            const Temp& tmp = temps[t];
            const Obj view = operands.begin()[tmp.operand].view;
            b.views_[tmp.operand] = make_view(buffer, element_offset(tmp.span.first, lo), view);
            if (tmp.written)
                b.writebacks_.push_back({buffer, tmp.span.lo - lo, tmp.span.lo, tmp.span.hi - tmp.span.lo});
        }
        start = end;
    }
    return b;
}

void DeviceMemory::Binding::commit()
{
    for (const Writeback& w : writebacks_) {
        context_->read(w.buffer, w.device_offset, w.bytes, reinterpret_cast<void*>(w.host));
        ++downloads;
        downloaded_bytes += w.bytes;
    }
    writebacks_.clear();
}

} // namespace flamex::opencl
