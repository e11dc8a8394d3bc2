#!/usr/bin/python3
"""spider.py — bench/crawl's Scrapy peer: a CrawlSpider over the 8 bench
hosts, CONCURRENT_REQUESTS 64, no delay, no autothrottle, nothing stored.

usage: spider.py SEEDS STATS_OUT    (http_proxy from the environment)

Writes the number of responses received to STATS_OUT.
"""
import sys

from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

HOSTS = ["h%d.bench.test" % k for k in range(8)]


class BenchSpider(CrawlSpider):
    name = "bench"
    allowed_domains = HOSTS
    rules = (Rule(LinkExtractor(allow_domains=HOSTS), callback="page",
                  follow=True),)

    def __init__(self, seeds, **kw):
        with open(seeds) as f:
            self.start_urls = [u.strip() for u in f if u.strip()]
        super().__init__(**kw)

    def page(self, response):
        return None


def main():
    seeds, stats_out = sys.argv[1], sys.argv[2]
    process = CrawlerProcess(settings={
        "CONCURRENT_REQUESTS": 64,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "COOKIES_ENABLED": False,
        "DEPTH_LIMIT": 0,
        "HTTPCACHE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    })
    crawler = process.create_crawler(BenchSpider)
    process.crawl(crawler, seeds=seeds)
    process.start()
    n = crawler.stats.get_value("response_received_count", 0)
    with open(stats_out, "w") as f:
        f.write("%d\n" % n)


if __name__ == "__main__":
    main()
