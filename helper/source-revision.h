/*
 * The git revision of the source tree the library was built from, taken by
 * the build (cmake/source-revision.cmake), so a run records where its
 * numbers came from without the library looking for a checkout at run time
 * (a copy on a cluster node has none). "unknown" outside a git checkout;
 * "-dirty" appended when tracked files had uncommitted changes.
 */
#ifndef METAROCE_SOURCE_REVISION_H
#define METAROCE_SOURCE_REVISION_H

namespace ns3
{

/** The revision, e.g. "36114ec1a2b3" or "36114ec1a2b3-dirty". */
const char* MetaRoceSourceRevision();

} // namespace ns3

#endif
