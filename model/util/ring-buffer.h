/*
 * RingBuffer: a FIFO with indexed access, backed by one power-of-two array
 * that grows on demand. Unlike std::deque (which allocates a 512-byte node
 * and a map as soon as it exists), an empty RingBuffer owns no memory: the
 * array is allocated by the first push and released when the last element is
 * popped, so the per-path and per-stream queues of thousands of idle
 * connections cost 24 bytes each. Growth moves the elements, and so
 * does emptying the buffer: do not keep references across a push or a pop.
 * KeepStorage = true keeps the array when the buffer empties: for queues that
 * empty and refill at every packet (a port's egress queues), where releasing
 * would cost an allocation per packet.
 */
#ifndef METAROCE_RING_BUFFER_H
#define METAROCE_RING_BUFFER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

namespace ns3
{

template <typename T, bool KeepStorage = false>
class RingBuffer
{
  public:
    RingBuffer() = default;

    RingBuffer(RingBuffer&& other) noexcept
        : m_data(std::move(other.m_data)),
          m_capacity(other.m_capacity),
          m_head(other.m_head),
          m_size(other.m_size)
    {
        other.m_capacity = other.m_head = other.m_size = 0;
    }

    RingBuffer& operator=(RingBuffer&& other) noexcept
    {
        if (this != &other)
        {
            Release();
            m_data = std::move(other.m_data);
            m_capacity = other.m_capacity;
            m_head = other.m_head;
            m_size = other.m_size;
            other.m_capacity = other.m_head = other.m_size = 0;
        }
        return *this;
    }

    RingBuffer(const RingBuffer&) = delete;
    RingBuffer& operator=(const RingBuffer&) = delete;

    ~RingBuffer()
    {
        DestroyAll();
    }

    bool empty() const
    {
        return m_size == 0;
    }

    size_t size() const
    {
        return m_size;
    }

    /** Elements the array holds (0 when empty). */
    size_t capacity() const
    {
        return m_capacity;
    }

    T& front()
    {
        return *At(m_head);
    }

    const T& front() const
    {
        return *At(m_head);
    }

    T& back()
    {
        return *At((m_head + m_size - 1) & (m_capacity - 1));
    }

    T& operator[](size_t i)
    {
        return *At((m_head + i) & (m_capacity - 1));
    }

    const T& operator[](size_t i) const
    {
        return *At((m_head + i) & (m_capacity - 1));
    }

    // Pushes construct the element in its slot: they write the slot without
    // reading it first (an egress queue's slot is usually out of cache).
    void push_back(const T& value)
    {
        Reserve(m_size + 1);
        new (At((m_head + m_size) & (m_capacity - 1))) T(value);
        ++m_size;
    }

    void push_back(T&& value)
    {
        Reserve(m_size + 1);
        new (At((m_head + m_size) & (m_capacity - 1))) T(std::move(value));
        ++m_size;
    }

    void push_front(T value)
    {
        Reserve(m_size + 1);
        m_head = (m_head + m_capacity - 1) & (m_capacity - 1);
        new (At(m_head)) T(std::move(value));
        ++m_size;
    }

    void pop_front()
    {
        At(m_head)->~T();
        if (--m_size == 0 && !KeepStorage)
        {
            Release();
            return;
        }
        m_head = (m_head + 1) & (m_capacity - 1);
    }

    void clear()
    {
        Release();
    }

  private:
    /** Raw storage for one element (constructed only while it is in the buffer). */
    struct Slot
    {
        alignas(T) unsigned char bytes[sizeof(T)];
    };

    T* At(size_t slot)
    {
        return std::launder(reinterpret_cast<T*>(&m_data[slot]));
    }

    const T* At(size_t slot) const
    {
        return std::launder(reinterpret_cast<const T*>(&m_data[slot]));
    }

    void DestroyAll()
    {
        for (uint32_t i = 0; i < m_size; ++i)
        {
            (*this)[i].~T();
        }
        m_size = 0;
    }

    void Release()
    {
        DestroyAll();
        m_data.reset();
        m_capacity = 0;
        m_head = 0;
    }

    void Reserve(size_t n)
    {
        if (n <= m_capacity)
        {
            return;
        }
        uint32_t cap = m_capacity == 0 ? 4 : m_capacity * 2;
        while (cap < n)
        {
            cap *= 2;
        }
        std::unique_ptr<Slot[]> grown(new Slot[cap]);
        for (uint32_t i = 0; i < m_size; ++i)
        {
            T& old = (*this)[i];
            new (std::launder(reinterpret_cast<T*>(&grown[i]))) T(std::move(old));
            old.~T();
        }
        m_data = std::move(grown);
        m_capacity = cap;
        m_head = 0;
    }

    std::unique_ptr<Slot[]> m_data;
    uint32_t m_capacity = 0; //!< a power of two, or 0
    uint32_t m_head = 0;
    uint32_t m_size = 0;
};

} // namespace ns3

#endif
