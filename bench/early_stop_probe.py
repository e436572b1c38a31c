import sys; sys.path.insert(0,'/work/main')
from tests.agents.test_belief_ismcts import positions, agent
from collections import defaultdict
views = positions(60, seed=11)
for budget in (400, 2000):
    ran=[]; byphase=defaultdict(list)
    for v in views:
        a = agent(v.seat, 3, budget); a.act(v); ran.append(a.iterations or 0); byphase[v.phase.value].append((a.iterations or 0)/budget)
    print(budget, 'mean share run %.2f' % (sum(ran)/len(ran)/budget), 'stopped', sum(r < 0.95*budget for r in ran), {k: '%.2f'%(sum(x)/len(x)) for k,x in byphase.items()})
