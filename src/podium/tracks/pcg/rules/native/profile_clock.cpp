// Box2D's b2Timer, stopped: the native engine links this instead of Box2D's Common/b2Timer.cpp.
//
// b2World::Step and b2Island::Solve time their phases for b2World::GetProfile, which podium never reads, with a
// gettimeofday call per phase: about 2.5 % of a run (perf, the benchmarks' towers). A timer that reads no clock
// changes nothing else: the profile is all the physics writes its readings to.
#include <Box2D/Common/b2Timer.h>

b2Timer::b2Timer() {}

void b2Timer::Reset() {}

float32 b2Timer::GetMilliseconds() const { return 0.0f; }
