"""hindsight"""
