/*
 * RingBuffer: a FIFO with indexed access, backed by one power-of-two vector
 * that grows on demand. Unlike std::deque (which allocates a 512-byte node
 * and a map as soon as it exists), an empty RingBuffer owns no memory, which
 * matters for per-path queues of thousands of connections. Growth moves the
 * elements: do not keep references across a push.
 */
#ifndef METAROCE_RING_BUFFER_H
#define METAROCE_RING_BUFFER_H

#include <cstddef>
#include <utility>
#include <vector>

namespace ns3
{

template <typename T>
class RingBuffer
{
  public:
    bool empty() const { return m_size == 0; }
    size_t size() const { return m_size; }

    T& front() { return m_data[m_head]; }
    const T& front() const { return m_data[m_head]; }
    T& back() { return m_data[(m_head + m_size - 1) & (m_data.size() - 1)]; }
    T& operator[](size_t i) { return m_data[(m_head + i) & (m_data.size() - 1)]; }
    const T& operator[](size_t i) const { return m_data[(m_head + i) & (m_data.size() - 1)]; }

    void push_back(T value)
    {
        Reserve(m_size + 1);
        m_data[(m_head + m_size) & (m_data.size() - 1)] = std::move(value);
        ++m_size;
    }

    void push_front(T value)
    {
        Reserve(m_size + 1);
        m_head = (m_head + m_data.size() - 1) & (m_data.size() - 1);
        m_data[m_head] = std::move(value);
        ++m_size;
    }

    void pop_front()
    {
        m_data[m_head] = T();
        m_head = (m_head + 1) & (m_data.size() - 1);
        --m_size;
    }

    void clear()
    {
        while (m_size > 0)
        {
            pop_front();
        }
        m_head = 0;
    }

  private:
    void Reserve(size_t n)
    {
        if (n <= m_data.size())
        {
            return;
        }
        size_t cap = m_data.empty() ? 4 : m_data.size() * 2;
        while (cap < n)
        {
            cap *= 2;
        }
        std::vector<T> grown(cap);
        for (size_t i = 0; i < m_size; ++i)
        {
            grown[i] = std::move((*this)[i]);
        }
        m_data.swap(grown);
        m_head = 0;
    }

    std::vector<T> m_data;
    size_t m_head = 0;
    size_t m_size = 0;
};

} // namespace ns3

#endif
