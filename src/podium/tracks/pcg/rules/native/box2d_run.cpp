// One run of the Science Birds evaluator's physics, with no Python in the step loop.
//
// podium's rule is physics.py's simulate_run over pybox2d; this file does the same run, call for call, against the
// same Box2D 2.3 sources, so that the results are the same floats (tests/tracks/pcg/rules/test_native.py compares
// both engines). What Python did through the binding is done here with the same conversions: every number arrives
// as a double and becomes a float32 where the binding's typemaps made one (a plain cast), and the damage arithmetic
// stays in double as in Python. Built by scripts/build_pcg_physics.py with -ffp-contract=off and no fast-math, so the compiler may not
// fuse or reorder any floating-point operation.
#include <Box2D/Box2D.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" {

// Mirrors native/__init__.py's _Parameters field for field.
struct PcgRunParameters {
    double gravity_y;
    double gravity_scale;
    double time_step;
    double linear_drag;
    double angular_drag;
    double polygon_radius;
    double density;
    double wood_friction;
    double wood_restitution;
    double ground_friction;
    double ground_top_y;
    double ground_half_width;
    double block_life;
    const double* ground_centres_x;
    int32_t ground_count;
    int32_t velocity_iterations;
    int32_t position_iterations;
    int32_t steps;
    int32_t removal_steps;
};

}  // extern "C"

namespace {

// A block's userData is its place in creation order plus one; the ground's is null.
intptr_t place_of(const b2Body* body) { return reinterpret_cast<intptr_t>(body->GetUserData()) - 1; }

class DamageListener : public b2ContactListener {
   public:
    std::vector<double> life;  // by creation place
    std::vector<int> dying;    // places whose life fell to 0 or below during this step

    void BeginContact(b2Contact* contact) override {
        b2Body* body_a = contact->GetFixtureA()->GetBody();
        b2Body* body_b = contact->GetFixtureB()->GetBody();
        const int count = contact->GetManifold()->pointCount;
        if (count == 0) {
            return;
        }
        b2WorldManifold manifold;
        contact->GetWorldManifold(&manifold);
        double px = 0.0;
        double py = 0.0;
        for (int i = 0; i < count; ++i) {  // Python's sum(), left to right from 0
            px += manifold.points[i].x;
            py += manifold.points[i].y;
        }
        px /= count;
        py /= count;
        const b2Vec2 point(static_cast<float32>(px), static_cast<float32>(py));
        const b2Vec2 va = body_a->GetLinearVelocityFromWorldPoint(point);
        const b2Vec2 vb = body_b->GetLinearVelocityFromWorldPoint(point);
        const double dx = static_cast<double>(vb.x) - static_cast<double>(va.x);
        const double dy = static_cast<double>(vb.y) - static_cast<double>(va.y);
        const double speed = std::sqrt(dx * dx + dy * dy);
        damage(body_a, speed);
        damage(body_b, speed);
    }

   private:
    void damage(const b2Body* body, double speed) {
        const intptr_t place = place_of(body);
        if (place < 0) {
            return;  // the ground takes no damage
        }
        const double before = life[place];
        life[place] = before - speed;
        if (before > 0 && 0 >= before - speed) {
            dying.push_back(static_cast<int>(place));
        }
    }
};

b2PolygonShape box(double half_width, double half_height) {
    b2PolygonShape shape;
    shape.SetAsBox(static_cast<float32>(half_width), static_cast<float32>(half_height));
    return shape;
}

}  // namespace

extern "C" {

// The digest of the recipe this library was built from (native/recipe.py), which podium checks before using it.
// scripts/build_pcg_physics.py defines it; a library compiled by other means is stamped "unknown" and refused.
#ifndef PCG_BUILD_DIGEST
#define PCG_BUILD_DIGEST "unknown"
#endif
const char* pcg_build_digest() { return PCG_BUILD_DIGEST; }

// Simulates one run of `count` blocks, given in creation order as (x, y, angle, half width, half height).
// Writes, per block in creation order, (x, y, angle) and whether it was removed: for a removed block the position
// it had when it left the level, otherwise its final pose. Returns the steps run, or -1 if Box2D threw.
int pcg_simulate_run(const PcgRunParameters* params, const double* blocks, int32_t count, double* poses,
                     int32_t* removed) {
    try {
        DamageListener listener;
        b2World world(b2Vec2(0.0f, static_cast<float32>(params->gravity_y)));
        world.SetAllowSleeping(true);
        world.SetContactListener(&listener);
        world.SetContinuousPhysics(true);
        for (int32_t i = 0; i < params->ground_count; ++i) {
            b2BodyDef ground_def;
            ground_def.type = b2_staticBody;
            ground_def.position.Set(static_cast<float32>(params->ground_centres_x[i]),
                                    static_cast<float32>(params->ground_top_y - 0.5));
            b2Body* ground = world.CreateBody(&ground_def);
            const b2PolygonShape shape = box(params->ground_half_width, 0.5);
            b2FixtureDef fixture;
            fixture.shape = &shape;
            fixture.friction = static_cast<float32>(params->ground_friction);
            fixture.restitution = 0.0f;
            ground->CreateFixture(&fixture);
        }

        std::vector<b2Body*> bodies(count);
        for (int32_t i = 0; i < count; ++i) {
            const double* block = blocks + 5 * i;
            b2BodyDef def;
            def.type = b2_dynamicBody;
            def.position.Set(static_cast<float32>(block[0]), static_cast<float32>(block[1]));
            def.angle = static_cast<float32>(block[2]);
            def.gravityScale = static_cast<float32>(params->gravity_scale);
            def.linearDamping = static_cast<float32>(params->linear_drag);
            def.angularDamping = static_cast<float32>(params->angular_drag);
            def.userData = reinterpret_cast<void*>(static_cast<intptr_t>(i) + 1);
            bodies[i] = world.CreateBody(&def);
            b2PolygonShape shape = box(block[3], block[4]);
            shape.m_radius = static_cast<float32>(params->polygon_radius);
            b2FixtureDef fixture;
            fixture.shape = &shape;
            fixture.density = static_cast<float32>(params->density);
            fixture.friction = static_cast<float32>(params->wood_friction);
            fixture.restitution = static_cast<float32>(params->wood_restitution);
            bodies[i]->CreateFixture(&fixture);
            listener.life.push_back(params->block_life);
            if (params->block_life <= 0) {
                listener.dying.push_back(i);  // dead from the start: it dies after the first step
            }
        }

        std::vector<int32_t> died_at(count, -1);
        std::fill(removed, removed + count, 0);
        std::vector<int> dead;  // died, not yet removed, in the order they died
        int32_t removed_count = 0;
        int32_t died_count = 0;
        int32_t step = 1;
        for (; step <= params->steps; ++step) {
            world.Step(static_cast<float32>(params->time_step), params->velocity_iterations,
                       params->position_iterations);
            for (auto it = dead.begin(); it != dead.end();) {
                if (step - died_at[*it] >= params->removal_steps) {
                    const b2Vec2& position = bodies[*it]->GetPosition();
                    poses[3 * *it] = position.x;
                    poses[3 * *it + 1] = position.y;
                    removed[*it] = 1;
                    ++removed_count;
                    it = dead.erase(it);
                } else {
                    ++it;
                }
            }
            if (!listener.dying.empty()) {
                // in creation order: the order of changes to the world decides the order of its contacts
                std::sort(listener.dying.begin(), listener.dying.end());
                for (const int place : listener.dying) {
                    b2Body* body = bodies[place];
                    died_at[place] = step;
                    ++died_count;
                    dead.push_back(place);
                    body->SetLinearVelocity(b2Vec2(0.0f, 0.0f));
                    body->SetAngularVelocity(0.0f);
                    while (b2Fixture* fixture = body->GetFixtureList()) {
                        body->DestroyFixture(fixture);
                    }
                    body->SetAwake(true);
                }
                listener.dying.clear();
            }
            // Sleeping bodies only wake through contacts, so once every body sleeps nothing can change any more.
            if (step % 10 == 0 && died_count == removed_count) {
                bool any_awake = false;
                for (int32_t i = 0; i < count && !any_awake; ++i) {
                    any_awake = !removed[i] && bodies[i]->IsAwake();
                }
                if (!any_awake) {
                    break;
                }
            }
        }
        for (int32_t i = 0; i < count; ++i) {
            if (!removed[i]) {
                const b2Vec2& position = bodies[i]->GetPosition();
                poses[3 * i] = position.x;
                poses[3 * i + 1] = position.y;
                poses[3 * i + 2] = bodies[i]->GetAngle();
            }
        }
        return std::min(step, params->steps);
    } catch (...) {
        return -1;
    }
}

}  // extern "C"
