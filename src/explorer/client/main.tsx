import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { Link } from './link.tsx';
import { OrderView } from './order-view.tsx';
import { BASE, type Route, useRoute } from './router.ts';
import { SearchBox, SearchResults } from './search.tsx';
import { StatsView } from './stats-view.tsx';
import { TransactionView } from './tx-view.tsx';
import { UserView } from './user-view.tsx';

/** The explorer: one page for every /explorer path, each view read from the public GraphQL API. */
function Explorer() {
  const route = useRoute();
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <h1>
          <Link href={BASE}>Order book explorer</Link>
        </h1>
        <SearchBox initial={route.view === 'home' ? route.search : undefined} />
      </header>
      <main id="main" tabIndex={-1}>
        <View route={route} />
      </main>
    </>
  );
}

function View({ route }: { route: Route }) {
  switch (route.view) {
    case 'home':
      return route.search ? <SearchResults term={route.search} /> : <StatsView />;
    case 'order':
      return <OrderView orderId={route.orderId} />;
    case 'user':
      return <UserView userId={route.userId} page={route.page} limit={route.limit} />;
    case 'tx':
      return <TransactionView hash={route.hash} />;
    case 'missing':
      return (
        <div class="not-found" role="status">
          <h2>Not found</h2>
          <p>
            The explorer has no such page. Search above, or go to the <Link href={BASE}>overview</Link>.
          </p>
        </div>
      );
  }
}

render(<Explorer />, document.getElementById('app')!);
